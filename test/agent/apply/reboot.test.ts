/**
 * A router that reboots under an applied plan, on a real kernel: the on-router agent
 * (NetnsHost in the router namespace, a real gRPC stream to a fake controller, a state file)
 * applies a plan, is stopped, the router "reboots", and a new agent starts from the state
 * file. This kernel cannot be rebooted by a test, so a reboot is simulated by what it does
 * to the agent's world: the kernel state in the namespace is flushed (our TCX links detached
 * and pins removed, cls_bpf filters, our nftables table, gso_max_segs back at its default)
 * and the host reports another boot id (/proc/sys/kernel/random/boot_id substituted).
 *
 *   client ── (lan0) router (wan0 10.213.2.1) ── (up0 10.213.2.2) peer      (test/support/datapath-topology.ts)
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyResult_Status, type ApplyResult, type DesiredState } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { BOOT_ID_PATH } from '../../../agent/apply/reboot.js';
import { FileStateStore, type AgentState } from '../../../agent/apply/state-store.js';
import { ebpfStatus } from '../../../agent/datapath/loader.js';
import { LOCAL_TCX_HELPER } from '../../../agent/datapath/programs.js';
import { PROGRAM_NAMES } from '../../../core/programs.js';
import { RouterAgent, type RouterAgentOptions } from '../../../agent/router-agent.js';
import { requireFeatures } from '../../support/datapath-features.js';
import { Topology } from '../../support/datapath-topology.js';
import { eventually } from '../../support/controller.js';
import { FakeController } from '../../support/fake-controller.js';
import { FaultHost } from '../../support/fault-host.js';
import { fourRewritesRun, tcxProgIds, wireFromRouter } from '../../support/router-checks.js';

/** The router namespace, reporting the boot id the test chose (none chosen: the kernel's own). */
class RebootableHost extends FaultHost {
  bootId: string | undefined;

  override readFile(path: string): Promise<string | null> {
    if (path === BOOT_ID_PATH && this.bootId !== undefined) return Promise.resolve(`${this.bootId}\n`);
    return super.readFile(path);
  }
}

const topo = new Topology();
const host = new RebootableHost(topo.router);
const controller = new FakeController();
const ID = `reboot:${topo.id}`;
const PROFILE = 'p-reboot';
const stateFile = join(topo.work, 'state.json');
const TTL = 128;
const KERNEL_BOOT_ID = readFileSync(BOOT_ID_PATH, 'utf8').trim();
const logs: string[] = [];
let agent: RouterAgent | undefined;

type Evidence = { trigger?: string; summary?: string; bootId?: { recorded: string; now: string } };
const evidenceOf = (r: ApplyResult) => (r.evidence ?? {}) as Evidence;
const rebootReports = () => controller.results(ID).filter((r) => evidenceOf(r).trigger === 'reboot');
const savedState = () => JSON.parse(readFileSync(stateFile, 'utf8')) as AgentState;

/** Starts an agent on the state file and waits for its Hello. */
async function startAgent(extra: Partial<RouterAgentOptions> = {}): Promise<RouterAgent> {
  const hellos = controller.hellos.length;
  agent = new RouterAgent({
    host,
    controller: controller.address,
    placement: 'on_router',
    identity: ID,
    store: new FileStateStore(stateFile),
    paths: { pinRoot: topo.pinRoot },
    wanWatchMs: 300,
    reconnect: { jitterWindowMs: 200, initialDelayMs: 100, maxDelayMs: 500 },
    log: (m) => logs.push(m),
    ...extra,
  });
  agent.start();
  await eventually(
    async () => controller.hellos.length > hellos && controller.connected(ID),
    20_000,
    'agent connected',
  );
  return agent;
}

async function stopAgent(): Promise<void> {
  await agent?.stop();
  agent = undefined;
}

let revision = 0;
/** Pushes a revision and waits for its own ApplyResult. */
async function push(spec: unknown, confirmWindowSeconds = 0): Promise<ApplyResult> {
  const rev = ++revision;
  controller.send(ID, {
    $case: 'desiredState',
    value: { profile: PROFILE, revision: rev, spec: spec as DesiredState['spec'], confirmWindowSeconds, rolloutId: '' },
  });
  return eventually(
    async () => controller.results(ID).find((r) => r.revision === rev && evidenceOf(r).trigger === undefined),
    20_000,
    `result of revision ${rev}`,
  );
}

const fourRewritesRunOnWan = () => fourRewritesRun(host, topo.pinRoot);
const kernelTcx = () => tcxProgIds(host);

const nftTable = async () => host.run(['nft', 'list', 'table', 'inet', 'wrtfleet']);

/** What a reboot takes with it, in the router namespace: our TCX links and pins, filters, our nft table, the lowered gso_max_segs. */
async function flushKernelState(): Promise<void> {
  const links = (await host.run(['sh', '-c', `ls -d ${topo.pinRoot}/*/*/link 2>/dev/null`])).stdout
    .split('\n')
    .filter(Boolean);
  for (const link of links) expect((await host.run([LOCAL_TCX_HELPER, 'detach', link])).code, `detach ${link}`).toBe(0);
  expect((await host.run([LOCAL_TCX_HELPER, 'rm', topo.pinRoot])).code).toBe(0);
  await host.run(['tc', 'qdisc', 'del', 'dev', 'wan0', 'clsact']); // absent with TCX: fine
  await host.run(['nft', 'delete', 'table', 'inet', 'wrtfleet']);
  expect((await host.run(['ip', 'link', 'set', 'dev', 'wan0', 'gso_max_segs', '65535'])).code).toBe(0);
  expect(await kernelTcx()).toEqual([]);
  expect((await ebpfStatus(host, { pinRoot: topo.pinRoot })).interfaces).toEqual([]);
  expect((await nftTable()).code).not.toBe(0);
}

/** The simulated reboot: kernel state flushed, another boot id. Returns the new boot id. */
async function reboot(): Promise<string> {
  await flushKernelState();
  host.bootId = randomUUID();
  return host.bootId;
}

const wireCheck = (label: string) => wireFromRouter(topo, label, TTL);

beforeAll(async () => {
  await topo.create();
  await requireFeatures(topo, ['tcx', 'nftables']);
  await topo.addDefaultRoute();
  await topo.startIperfServer();
  await controller.start();
  await startAgent();
}, 120_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await controller.stop();
  await topo.destroy();
});

describe('a router reboot under an applied plan (reboot simulated: this kernel cannot be rebooted; boot id changed + kernel state flushed)', () => {
  it('eBPF datapath, drift policy report: the four rewrites are attached again within seconds, reported with trigger reboot, and the wire shows it', async () => {
    const r = await push({ l3Rewrite: { ttl: { value: TTL } }, drift: { policy: 'report' } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    await eventually(async () => agent!.manager.current.pending === null, 15_000, 'confirmed');
    expect(await fourRewritesRunOnWan()).toBe(true);
    const applied = savedState().applied!;
    expect(applied.plan.drift.policy).toBe('report');
    // The boot id is recorded with the applied state, read through the host.
    expect(savedState().bootId).toBe(KERNEL_BOOT_ID);

    await stopAgent();
    const bootId = await reboot();
    const t0 = Date.now();
    await startAgent();
    await eventually(() => fourRewritesRunOnWan(), 15_000, 'the four rewrites attached on wan0 again');
    // About a second on a quiet machine; 15 s leaves room for CI's kernel build beside the suite.
    expect(Date.now() - t0).toBeLessThan(15_000);

    const rep = await eventually(async () => rebootReports()[0], 10_000, 'ApplyResult with trigger reboot');
    expect(rep.status, rep.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(rep).toMatchObject({ profile: PROFILE, revision: r.revision, planHash: r.planHash });
    expect(evidenceOf(rep).bootId).toEqual({ recorded: KERNEL_BOOT_ID, now: bootId });
    expect(evidenceOf(rep).summary).toBe('router rebooted: re-applied eBPF datapath on wan0');
    await agent!.manager.idle();
    expect(savedState().bootId).toBe(bootId);
    // The applied record is the same one: nothing but the kernel state was re-established.
    expect(savedState().applied).toEqual(applied);
    expect(controller.results(ID).filter((x) => x.revision === r.revision)).toHaveLength(2);
    expect(controller.driftReports(ID)).toEqual([]);
    await wireCheck('reboot-ebpf');
  });

  it('same boot id after a restart with the kernel state flushed: nothing is re-applied, drift reports it instead', async () => {
    const bootId = savedState().bootId;
    await stopAgent();
    await flushKernelState(); // the boot id stays: an agent restart, not a reboot
    const reports = rebootReports().length;
    await startAgent({ driftIntervalMs: 500 });
    const drift = await eventually(async () => controller.driftReports(ID)[0], 10_000, 'drift report');
    expect(drift.differences.map((d) => d.path)).toEqual(PROGRAM_NAMES.map((p) => `datapath/wan0/${p}`));
    await agent!.manager.idle();
    expect(rebootReports()).toHaveLength(reports);
    expect(await kernelTcx()).toEqual([]);
    expect((await ebpfStatus(host, { pinRoot: topo.pinRoot })).interfaces).toEqual([]);
    expect(savedState().bootId).toBe(bootId);
    await stopAgent();
  });

  it('nftables datapath (ebpf off): the table is back after a reboot, reported, and the wire shows it', async () => {
    await startAgent();
    const r = await push({ l3Rewrite: { ebpf: 'off', ttl: { value: TTL } }, drift: { policy: 'report' } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(agent!.manager.current.applied?.plan.datapath.mode).toBe('nftables');
    await eventually(async () => agent!.manager.current.pending === null, 15_000, 'confirmed');
    const rule = /oifname "wan0" ip ttl != 128 ip ttl set 128 counter/;
    expect((await nftTable()).stdout).toMatch(rule);

    await stopAgent();
    const bootId = await reboot();
    const reports = rebootReports().length;
    await startAgent();
    await eventually(async () => rule.test((await nftTable()).stdout), 15_000, 'our nft table with the wan0 rules');
    const rep = await eventually(async () => rebootReports()[reports], 10_000, 'ApplyResult with trigger reboot');
    expect(rep.status, rep.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(rep).toMatchObject({ revision: r.revision, planHash: r.planHash });
    expect(evidenceOf(rep).summary).toBe('router rebooted: re-applied nftables datapath on wan0');
    expect(evidenceOf(rep).bootId?.now).toBe(bootId);
    expect((await ebpfStatus(host, { pinRoot: topo.pinRoot })).interfaces).toEqual([]);
    await wireCheck('reboot-nft');
  });

  it('an agent that keeps running (a proxy outlives its router) notices the reboot at its next drift check and re-applies instead of reporting drift', async () => {
    await stopAgent();
    await startAgent({ driftIntervalMs: 700 });
    const r = await push({ l3Rewrite: { ttl: { value: TTL } }, drift: { policy: 'report' } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    await eventually(async () => agent!.manager.current.pending === null, 15_000, 'confirmed');
    const drifts = controller.driftReports(ID).length;
    const reports = rebootReports().length;
    // The agent is not restarted. Flush and new boot id in one step, as a real reboot: a drift check
    // between the two would see the programs gone under the old boot id (CI saw that once).
    const bootId = await agent!.manager.exclusive(() => reboot());
    await eventually(() => fourRewritesRunOnWan(), 10_000, 'the four rewrites attached again by the drift timer');
    const rep = await eventually(async () => rebootReports()[reports], 10_000, 'ApplyResult with trigger reboot');
    expect(rep.status, rep.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(evidenceOf(rep).bootId?.now).toBe(bootId);
    await agent!.manager.idle();
    expect(
      controller
        .driftReports(ID)
        .slice(drifts)
        .filter((d) => d.differences.length > 0),
    ).toEqual([]);
    expect(savedState().bootId).toBe(bootId);
    await wireCheck('reboot-running-agent');
    await stopAgent();
    await startAgent();
  });

  it('a failed re-apply is reported as FAILED and keeps the applied record and the old boot id; the next start tries again', async () => {
    const r = await push({ l3Rewrite: { ttl: { value: TTL } }, drift: { policy: 'report' } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    await eventually(async () => agent!.manager.current.pending === null, 15_000, 'confirmed');
    const before = savedState();
    await stopAgent();
    const bootId = await reboot();
    const reports = rebootReports().length;
    host.fault = (argv) =>
      argv[0] === 'bpftool' && argv[2] === 'load'
        ? { fail: { code: 255, stdout: '', stderr: 'Error: injected: failed to load program' } }
        : undefined;
    try {
      await startAgent();
      const rep = await eventually(async () => rebootReports()[reports], 10_000, 'ApplyResult with trigger reboot');
      expect(rep.status).toBe(ApplyResult_Status.STATUS_FAILED);
      expect(rep.revision).toBe(r.revision);
      expect(rep.error).toMatch(
        /^router rebooted: eBPF datapath on wan0 not re-established: re-applying the datapath failed: .*injected: failed to load program; p-reboot@\d+ stays the applied revision$/,
      );
      await agent!.manager.idle();
    } finally {
      host.fault = undefined;
    }
    expect(savedState().applied).toEqual(before.applied);
    expect(savedState().bootId).toBe(before.bootId);
    expect(controller.results(ID).some((x) => x.status === ApplyResult_Status.STATUS_ROLLED_BACK)).toBe(false);

    await stopAgent();
    await startAgent();
    await eventually(() => fourRewritesRunOnWan(), 15_000, 'the four rewrites attached on wan0 on the next start');
    const again = await eventually(
      async () => rebootReports()[reports + 1],
      10_000,
      'second ApplyResult with trigger reboot',
    );
    expect(again.status, again.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    await agent!.manager.idle();
    expect(savedState().bootId).toBe(bootId);
  });

  it('a reboot inside a commit-confirm window rolls back to the previous revision at once, and does not re-apply the unconfirmed one', async () => {
    const confirmed = agent!.manager.current.applied!;
    expect(agent!.manager.current.pending).toBeNull();
    controller.autoConfirm = false;
    try {
      const u = await push({ l3Rewrite: { ebpf: 'off', ttl: { value: 70 } }, drift: { policy: 'report' } }, 600);
      expect(u.status, u.error).toBe(ApplyResult_Status.STATUS_APPLIED);
      expect(savedState().pending).toMatchObject({ revision: u.revision });
      expect((await nftTable()).stdout).toMatch(/ip ttl set 70/);

      await stopAgent();
      const recorded = savedState().bootId;
      const bootId = await reboot();
      const reports = rebootReports().length;
      const t0 = Date.now();
      await startAgent();
      const rolled = await eventually(
        async () =>
          controller
            .results(ID)
            .find((x) => x.revision === u.revision && x.status === ApplyResult_Status.STATUS_ROLLED_BACK),
        10_000,
        'ROLLED_BACK',
      );
      // Well inside the 600 s window: the reboot decided, not the timer.
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(rolled.error).toBe(
        `the router rebooted (boot id ${recorded} -> ${bootId}) before ConfirmApply: rolled back to ${PROFILE}@${confirmed.revision}`,
      );
      await agent!.manager.idle();
      // The previous revision runs (eBPF, TTL 128); the unconfirmed nftables table is not back.
      expect(await fourRewritesRunOnWan()).toBe(true);
      expect((await nftTable()).code).not.toBe(0);
      const st = savedState();
      expect(st.pending).toBeNull();
      expect(st.applied).toEqual(confirmed);
      expect(st.bootId).toBe(bootId);
      expect(rebootReports()).toHaveLength(reports);
      expect(
        controller
          .results(ID)
          .filter((x) => x.revision === u.revision)
          .map((x) => x.status),
      ).toEqual([ApplyResult_Status.STATUS_APPLIED, ApplyResult_Status.STATUS_ROLLED_BACK]);
      expect(logs.some((l) => /rebooted .* inside the confirm window of p-reboot@\d+: rolling back/.test(l))).toBe(
        true,
      );
      await wireCheck('reboot-rolled-back');
    } finally {
      controller.autoConfirm = true;
    }
  });
});
