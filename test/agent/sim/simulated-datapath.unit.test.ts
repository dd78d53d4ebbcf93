import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentBody } from '../../../agent/controller-link.js';
import { ApplyManager } from '../../../agent/apply/manager.js';
import { FixtureHost } from '../../../agent/sim/fixture-host.js';
import { defaultFixturesDir } from '../../../agent/sim/fixtures.js';
import { SimulatedCounters } from '../../../agent/sim/simulated-counters.js';
import { SimulatedDatapath } from '../../../agent/sim/simulated-datapath.js';
import { simulatedPlan } from '../../../agent/sim/simulated-plans.js';
import { HeldStateStore } from '../../../agent/sim/simulated-state-store.js';
import { collectFacts } from '../../../core/facts/index.js';
import {
  ApplyResult_Status,
  type AppliedRevision,
  type DesiredState,
} from '../../../proto/gen/wrtfleet/agent/v1/agent.js';

const ROOT = join(defaultFixturesDir(), 'glinet-gl-mt6000-mt7986');

const desired = (revision: number, ttl: number, confirmWindowSeconds = 30): DesiredState => ({
  profile: 'p',
  revision,
  spec: { l3Rewrite: { ttl: { value: ttl } } } as unknown as DesiredState['spec'],
  confirmWindowSeconds,
  rolloutId: '',
});

/**
 * The agent's ApplyManager over a simulated router's datapath, as agent/sim/simulated-router.ts
 * wires them, without a controller: what `send` is given is what the controller would get.
 */
async function simulatedManager() {
  const facts = await collectFacts(new FixtureHost(ROOT));
  const sent: AgentBody[] = [];
  const stream = { up: true };
  const datapath: SimulatedDatapath = new SimulatedDatapath({
    wan: () => facts.network.wan[0] ?? 'wan',
    counters: new SimulatedCounters(),
    applied: (): AppliedRevision | undefined => manager.appliedRevision(),
  });
  const manager: ApplyManager = new ApplyManager({
    host: new FixtureHost(ROOT),
    store: new HeldStateStore(),
    router: async () => ({ facts }),
    send: (body) => (stream.up ? sent.push(body) : 0),
    datapath,
    plan: simulatedPlan,
  });
  await manager.init();
  return { manager, datapath, sent, stream };
}

const statuses = (sent: AgentBody[]) =>
  sent.flatMap((b) => (b.$case === 'applyResult' ? [[b.value.revision, b.value.status]] : []));

describe("a simulated router's datapath under the agent's ApplyManager", () => {
  const managers: ApplyManager[] = [];
  afterEach(() => {
    for (const m of managers.splice(0)) m.stop();
  });

  it('applies, keeps the result until its Ack, and rolls back by itself without ConfirmApply', async () => {
    const { manager, datapath, sent, stream } = await simulatedManager();
    managers.push(manager);
    await manager.onDesiredState(desired(1, 64));
    await manager.onConfirm({ profile: 'p', revision: 1 });
    const first = datapath.running?.planHash;
    expect(first).toBe(manager.current.applied?.planHash);

    await manager.onDesiredState(desired(2, 65, 1));
    expect(datapath.running?.planHash).not.toBe(first);
    expect(manager.appliedRevision()).toMatchObject({ revision: 2, pendingConfirm: true });
    // The stream is gone: the rollback's result waits in the outbox, with the unacked ones.
    stream.up = false;
    await new Promise((r) => setTimeout(r, 1_300));
    await manager.idle();
    expect(manager.appliedRevision()).toMatchObject({ revision: 1, pendingConfirm: false });
    expect(datapath.running?.planHash).toBe(first);
    expect(manager.current.outbox.map((o) => o.value.status)).toEqual([
      ApplyResult_Status.STATUS_APPLIED,
      ApplyResult_Status.STATUS_APPLIED,
      ApplyResult_Status.STATUS_ROLLED_BACK,
    ]);

    // A new stream: everything never acked goes again, in order; Acks empty the outbox.
    stream.up = true;
    sent.length = 0;
    await manager.onSession();
    expect(statuses(sent)).toEqual([
      [1, ApplyResult_Status.STATUS_APPLIED],
      [2, ApplyResult_Status.STATUS_APPLIED],
      [2, ApplyResult_Status.STATUS_ROLLED_BACK],
    ]);
    const rolledBack = sent[2]!.$case === 'applyResult' ? sent[2]!.value : undefined;
    expect(rolledBack?.error).toMatch(/no ConfirmApply from the controller within 1 s: rolled back to p@1/);
    for (const seq of [1, 2, 3]) await manager.onAck(seq);
    expect(manager.current.outbox).toEqual([]);
  });

  it('a scripted failure leaves the running plan and reports FAILED; the same revision again is unchanged', async () => {
    const { manager, datapath, sent } = await simulatedManager();
    managers.push(manager);
    await manager.onDesiredState(desired(1, 64));
    const running = datapath.running;
    datapath.failNext = true;
    await manager.onDesiredState(desired(2, 65));
    expect(datapath.failNext).toBe(false);
    expect(datapath.running).toBe(running);
    expect(manager.appliedRevision()?.revision).toBe(1);
    await manager.onDesiredState(desired(1, 64));
    expect(statuses(sent)).toEqual([
      [1, ApplyResult_Status.STATUS_APPLIED],
      [2, ApplyResult_Status.STATUS_FAILED],
      [1, ApplyResult_Status.STATUS_APPLIED],
    ]);
    const last = sent.at(-1)!;
    expect(last.$case === 'applyResult' && last.value.evidence).toMatchObject({
      unchanged: true,
      pendingConfirm: true,
    });
  });
});
