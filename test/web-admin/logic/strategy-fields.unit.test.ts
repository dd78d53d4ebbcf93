import { describe, expect, it } from 'vitest';
import { batchCountFor } from '../../../server/rollouts/rollout-strategy.js';
import {
  batchCount,
  checkStrategy,
  DEFAULT_STRATEGY_FIELDS,
} from '../../../web-admin/src/pages/rollouts/strategy-fields.js';

const now = new Date('2026-12-02T03:00:00Z');

describe("the rollout wizard's strategy fields", () => {
  it('turns the fields into the API strategy; a percentage becomes a ratio', () => {
    expect(checkStrategy({ ...DEFAULT_STRATEGY_FIELDS, failurePercent: '12.5' }, now)).toEqual({
      ok: true,
      strategy: { canary: 1, batchSize: 50, maxFailureRatio: 0.125, soakSeconds: 0, promote: 'auto' },
      startAt: undefined,
    });
    expect(checkStrategy({ ...DEFAULT_STRATEGY_FIELDS, soakSeconds: '300', promote: 'manual' }, now)).toMatchObject({
      ok: true,
      strategy: { soakSeconds: 300, promote: 'manual' },
    });
    const later = checkStrategy({ ...DEFAULT_STRATEGY_FIELDS, startAt: '2026-12-02T05:30:00Z' }, now);
    expect(later).toMatchObject({ ok: true, startAt: '2026-12-02T05:30:00.000Z' });
  });

  it('names each bad field with the bound it broke', () => {
    expect(
      checkStrategy(
        {
          canary: '-1',
          batchSize: '0',
          failurePercent: '150',
          soakSeconds: '604801',
          promote: 'manual',
          startAt: '2026-12-01T00:00:00Z',
        },
        now,
      ),
    ).toEqual({
      ok: false,
      errors: {
        canary: 'canary size: a whole number',
        batchSize: 'batch size: 1 to 10000',
        failurePercent: 'failure threshold: a percentage from 0 to 100',
        soakSeconds: 'soak time: 0 to 604800 (seconds)',
        startAt: 'start time: in the past (leave empty to start now)',
      },
    });
    expect(checkStrategy({ ...DEFAULT_STRATEGY_FIELDS, canary: '1.5', startAt: 'soon' }, now)).toMatchObject({
      ok: false,
      errors: { canary: 'canary size: a whole number', startAt: 'start time: not a date and time' },
    });
  });

  it('counts batches as the controller does', () => {
    for (const total of [0, 1, 2, 3, 12, 50, 51, 101]) {
      for (const strategy of [
        { canary: 1, batchSize: 50 },
        { canary: 0, batchSize: 5 },
        { canary: 3, batchSize: 4 },
      ]) {
        expect(batchCount(total, strategy), `${total} ${JSON.stringify(strategy)}`).toBe(
          batchCountFor(total, strategy),
        );
      }
    }
  });
});
