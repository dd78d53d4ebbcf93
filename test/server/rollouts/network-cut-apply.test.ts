/**
 * Issue #22: the network to a router is cut during its apply. Commit-confirmed must roll the
 * router back by itself, and the controller must record that rollback when the router returns.
 *
 *   test process: controller (gRPC on HOST_ADDR, PostgreSQL)
 *        │ wfcut<id>h  HOST_ADDR/30         (the link the test sets down, then up)
 *        │ wfcut<id>n  ROUTER_ADDR/30 ── namespace wf-cut-<id>: `agent fleet` (one simulated router)
 *
 * Real: the namespace, the veth link and its cut (the kernel drops the stream's packets, TCP
 * and gRPC notice nothing until the link returns), the agent process, its gRPC stream, the
 * controller and its database. Simulated: the router, an agent reading a captured tree
 * (fixtures/routers/kt-km14-102h-mt7621) that resolves the real plan but touches no kernel; its
 * commit-confirm window is shortened to CONFIRM_WINDOW_SECONDS (the spec's minimum is 10 s).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalHost } from '../../../core/host/local-host.js';
import { defaultFixturesDir } from '../../../agent/sim/fixtures.js';
import type { Controller } from '../../../server/controller.js';
import type { RolloutView } from '../../../server/rollouts/rollout-engine.js';
import { spawnAgent, type AgentProcess } from '../../support/agent-process.js';
import { eventually, startTestController, type authedFetch } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

const MODEL = 'kt-km14-102h-mt7621';
const IDENTITY = `sim.${MODEL}:001`;
const PROFILE = 'netcut';
/** Long enough to cut the link between the DesiredState's arrival and the APPLIED result. */
const APPLY_DELAY_MS = 1_500;
const CONFIRM_WINDOW_SECONDS = 3;

const id = randomBytes(3).toString('hex');
const NETNS = `wf-cut-${id}`;
const HOST_END = `wfcut${id}h`;
const ROUTER_END = `wfcut${id}n`;
const octet = 1 + (randomBytes(1)[0]! % 250);
const HOST_ADDR = `10.214.${octet}.1`;
const ROUTER_ADDR = `10.214.${octet}.2`;

const local = new LocalHost();

async function sh(argv: string[]): Promise<string> {
  const r = await local.run(argv, { timeoutMs: 10_000 });
  if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

type RouterView = {
  id: string;
  status: string;
  lastApplyStatus: string | null;
  appliedRevision: { profile: string; revision: number } | null;
};
type ApplyResultView = {
  status: string;
  revision: { profile: string; revision: number } | null;
  error: string | null;
  evidence: { rolledBackTo?: { profile: string; revision: number } | null } | null;
};
type AuditEvent = { action: string; actor: string; after: Record<string, unknown> };

describe('a real netns link cut during an apply to a simulated router (captured tree)', () => {
  const children: ChildProcess[] = [];
  const work = mkdtempSync(join(tmpdir(), 'wf-cut-'));
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let agent: AgentProcess;
  let routerId: string;

  const agentLog = () => agent.stderr();
  const router = async () => (await api<RouterView>(`/v1/routers/${routerId}`)).body;
  const rollout = async (rolloutId: string) => (await api<RolloutView>(`/v1/rollouts/${rolloutId}`)).body;
  const startRollout = async (revision: number) => {
    const created = await api<RolloutView>('/v1/rollouts', {
      method: 'POST',
      body: { profile: PROFILE, revision, selector: { ids: [routerId] }, strategy: { canary: 0, batchSize: 1 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  };

  beforeAll(async () => {
    // No skip: a host where namespaces cannot be made fails here, naming the command.
    await sh(['ip', 'netns', 'add', NETNS]);
    await sh(['ip', '-n', NETNS, 'link', 'set', 'lo', 'up']);
    await sh(['ip', 'link', 'add', HOST_END, 'type', 'veth', 'peer', 'name', ROUTER_END, 'netns', NETNS]);
    await sh(['ip', 'addr', 'add', `${HOST_ADDR}/30`, 'dev', HOST_END]);
    await sh(['ip', '-n', NETNS, 'addr', 'add', `${ROUTER_ADDR}/30`, 'dev', ROUTER_END]);
    await sh(['ip', 'link', 'set', HOST_END, 'up']);
    await sh(['ip', '-n', NETNS, 'link', 'set', ROUTER_END, 'up']);

    db = await createPostgresDatabase();
    ({ controller, fetch: api } = await startTestController(db, { grpcHost: HOST_ADDR }));
    await api(`/v1/profiles/${PROFILE}`, { method: 'PUT', body: { spec: { l3Rewrite: { ttl: { value: 65 } } } } });
    await api(`/v1/profiles/${PROFILE}`, {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 128 } } }, baseRevision: 1 },
    });

    // One model only: the fleet runs one router per folder it is given.
    cpSync(join(defaultFixturesDir(), MODEL), join(work, 'fixtures', MODEL), { recursive: true });
    agent = spawnAgent(
      [
        'fleet',
        '--controller',
        controller.grpcAddress,
        '--fixtures',
        join(work, 'fixtures'),
        '--per-model',
        '1',
        '--apply-delay-ms',
        String(APPLY_DELAY_MS),
        '--confirm-window-seconds',
        String(CONFIRM_WINDOW_SECONDS),
        '--reconnect-jitter-ms',
        '200',
        '--log-applies',
      ],
      children,
      { netns: NETNS },
    );
    routerId = await eventually(
      async () => {
        const list = await api<{ items: { id: string; identity: string; status: string }[] }>('/v1/routers');
        return list.body.items.find((r) => r.identity === IDENTITY && r.status === 'online')?.id;
      },
      20_000,
      `the agent in ${NETNS} connected over ${HOST_END} (agent log: ${agentLog()})`,
    );
  }, 40_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await controller?.close();
    await db?.drop();
    // Deleting the namespace deletes its veth end, and with it the host end.
    await local.run(['ip', 'netns', 'del', NETNS]);
    await local.run(['ip', 'link', 'del', HOST_END]);
    rmSync(work, { recursive: true, force: true });
  });

  it('rolls back by itself while cut off; on return the controller records rolled_back, not applied', async () => {
    // Revision 1 applied and confirmed over the intact link: what the router rolls back to.
    const first = await startRollout(1);
    await eventually(async () => (await rollout(first)).state === 'completed', 15_000, 'revision 1 rolled out');
    expect((await router()).appliedRevision).toEqual({ profile: PROFILE, revision: 1 });

    // Revision 2: cut the link once the router has it and before its apply ends.
    const second = await startRollout(2);
    await eventually(
      async () => agentLog().includes(`received ${PROFILE}@2`),
      10_000,
      'the router received revision 2',
    );
    await sh(['ip', 'link', 'set', HOST_END, 'down']);
    const cutAt = Date.now();

    await eventually(
      async () => agentLog().includes(`rolled back ${PROFILE}@2`),
      APPLY_DELAY_MS + CONFIRM_WINDOW_SECONDS * 1000 + 5_000,
      `the agent's own rollback (agent log: ${agentLog()})`,
    );
    // It applied (and answered) inside the cut, so no ConfirmApply could reach it.
    expect(agentLog()).toContain(`applied ${PROFILE}@2; waiting ${CONFIRM_WINDOW_SECONDS} s for ConfirmApply`);
    expect(agentLog()).toMatch(
      new RegExp(`rolled back ${PROFILE}@2: no ConfirmApply from the controller within 3 s; runs ${PROFILE}@1`),
    );
    // The controller saw the router go silent and heard nothing of revision 2 while cut off.
    await eventually(async () => (await router()).status === 'offline', 10_000, 'the router marked offline');
    const duringCut = (await api<{ items: ApplyResultView[] }>(`/v1/routers/${routerId}/apply-results`)).body.items;
    expect(duringCut.filter((r) => r.revision?.revision === 2)).toEqual([]);
    // The cut came before the apply ended, and the rollback a whole window after that end: at
    // least a window has passed since the cut (the apply delay ran partly before it).
    expect(Date.now() - cutAt).toBeGreaterThan(CONFIRM_WINDOW_SECONDS * 1000);

    await sh(['ip', 'link', 'set', HOST_END, 'up']);

    // The router returns; its rollback is recorded and the rollout counts it.
    const finished = await eventually(
      async () => {
        const view = await rollout(second);
        return view.counts.rolled_back === 1 ? view : undefined;
      },
      20_000,
      `rollout of revision 2 counting the rollback (agent log: ${agentLog()})`,
    );
    expect(finished.counts).toMatchObject({ applied: 0, rolled_back: 1, sent: 0 });
    // A failure ratio above the strategy's 0: the engine's next step pauses the rollout.
    const paused = await eventually(
      async () => {
        const view = await rollout(second);
        return view.state === 'paused' ? view : undefined;
      },
      10_000,
      'the rollout paused on the rollback',
    );
    expect(paused.pauseReason).toMatch(/1 of 1 routers failed or rolled back/);
    const targets = (
      await api<{ items: { routerId: string; state: string; error: string }[] }>(`/v1/rollouts/${second}/targets`)
    ).body.items;
    expect(targets).toEqual([
      expect.objectContaining({ routerId, state: 'rolled_back', error: expect.stringMatching(/no ConfirmApply/) }),
    ]);

    // The operator's view of the router: online, running revision 1, its last apply rolled back.
    await eventually(async () => (await router()).status === 'online', 10_000, 'the router online again');
    expect(await router()).toMatchObject({
      status: 'online',
      lastApplyStatus: 'rolled_back',
      appliedRevision: { profile: PROFILE, revision: 1 },
    });
    const revisions = (await api(`/v1/routers/${routerId}/revisions`)).body;
    expect(revisions.applied).toEqual({ profile: PROFILE, revision: 1 });
    // The controller now wants what the router runs: nothing sends the undone revision by itself.
    expect(revisions.desired).toEqual({ profile: PROFILE, revision: 1, rolloutId: null });
    expect(revisions.state).toBe('held_after_rollback');

    // Its apply history, newest first: the rollback with its reason, the apply it undid, revision 1.
    const history = (await api<{ items: ApplyResultView[] }>(`/v1/routers/${routerId}/apply-results`)).body.items;
    expect(history.map((r) => [r.status, r.revision?.revision])).toEqual([
      ['rolled_back', 2],
      ['applied', 2],
      ['applied', 1],
    ]);
    expect(history[0]!.error).toBe(
      `no ConfirmApply from the controller within ${CONFIRM_WINDOW_SECONDS} s: rolled back to ${PROFILE}@1`,
    );
    expect(history[0]!.evidence?.rolledBackTo).toMatchObject({ profile: PROFILE, revision: 1 });

    // The audit names both, the agent as actor; the undone apply says so.
    const audit = (await api<{ items: AuditEvent[] }>(`/v1/audit?router=${routerId}&order=desc`)).body.items;
    const rolledBack = audit.find((e) => e.action === 'apply.rolled_back');
    expect(rolledBack).toMatchObject({
      actor: `agent:${IDENTITY}`,
      after: { profile: PROFILE, revision: 2, status: 'rolled_back', error: history[0]!.error },
    });
    const undone = audit.find((e) => e.action === 'apply.applied' && e.after.revision === 2);
    expect(undone?.after.undone).toMatch(/no longer ran this revision/);

    // Not sent revision 2 again on its return: the rollback stands until a new rollout.
    const threeHeartbeatsMs = 3 * 1000;
    await new Promise((r) => setTimeout(r, threeHeartbeatsMs));
    expect(agentLog().split(`received ${PROFILE}@2`)).toHaveLength(2);
    expect(await router()).toMatchObject({ lastApplyStatus: 'rolled_back', appliedRevision: { revision: 1 } });
  }, 45_000);
});
