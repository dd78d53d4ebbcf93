import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMPTY_STATE, FileStateStore, type AgentState } from '../../../agent/apply/state-store.js';

const stateWith = (n: number): AgentState => ({
  ...structuredClone(EMPTY_STATE),
  // Sizes differ, so interleaved writes would leave bytes of one inside another.
  outbox: Array.from({ length: n }, (_, i) => ({
    $case: 'driftReport' as const,
    value: { profile: 'p', revision: i, differences: 'x'.repeat(1 + ((n * 37) % 500)) },
  })),
});

describe('FileStateStore (the agent state file on a real file system)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wf-state-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('saves issued at once (an apply and an Ack) leave the last state whole, never a mix of two', async () => {
    const store = new FileStateStore(join(dir, 'state.json'));
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.save(stateWith(i + 1))));
    const saved = JSON.parse(await readFile(store.path, 'utf8')) as AgentState;
    expect(saved.outbox).toHaveLength(40);
    expect(await store.load()).toEqual(stateWith(40));
    expect((await readdir(dir)).sort()).toEqual(['state.json']);
  });

  it('a corrupt file is kept aside and the agent starts from the empty state', async () => {
    const store = new FileStateStore(join(dir, 'state.json'));
    await writeFile(store.path, '{"version":1,"applied":null}garbage');
    expect(await store.load()).toEqual(EMPTY_STATE);
    expect((await readdir(dir)).some((f) => f.startsWith('state.json.corrupt-'))).toBe(true);
  });
});
