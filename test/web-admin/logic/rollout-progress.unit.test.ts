import { describe, expect, it } from 'vitest';
import { batchesOf, type TargetRow } from '../../../web-admin/src/pages/rollouts/rollout-progress.js';

const t = (routerId: string, batch: number, state: string): TargetRow => ({
  routerId,
  name: routerId,
  batch,
  state,
  error: null,
});

describe("a rollout's targets grouped by batch", () => {
  it('labels the canary, counts each state and says which batches are done, running or waiting', () => {
    const batches = batchesOf(
      [t('a', 0, 'applied'), t('b', 1, 'sent'), t('c', 1, 'failed'), t('d', 2, 'queued'), t('e', 2, 'queued')],
      3,
      1,
    );
    expect(batches.map((b) => [b.label, b.phase, b.total])).toEqual([
      ['canary', 'done', 1],
      ['batch 1', 'running', 2],
      ['batch 2', 'waiting', 2],
    ]);
    expect(batches[1]!.counts).toEqual({
      queued: 0,
      sent: 1,
      applied: 0,
      failed: 1,
      rolled_back: 0,
      skipped: 0,
      upgraded: 0,
      unconfirmed: 0,
    });
  });

  it('numbers batches from 1 without a canary, and ignores targets outside the batch count', () => {
    const batches = batchesOf([t('a', 0, 'skipped'), t('b', 1, 'rolled_back'), t('z', 7, 'applied')], 2, 0);
    expect(batches.map((b) => `${b.label} ${b.phase}`)).toEqual(['batch 1 done', 'batch 2 done']);
    expect(batches[1]!.counts.rolled_back).toBe(1);
    expect(batchesOf([], 0, 1)).toEqual([]);
  });
});
