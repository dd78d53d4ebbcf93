/**
 * A WAN that comes up late, on a real kernel: the on-router agent (NetnsHost in the router
 * namespace, a real gRPC stream to a fake controller) applies a plan while the router has
 * no default route, with drift policy 'report' (drift never re-applies), and its WAN watch
 * attaches the datapath by itself once the route appears, re-attaches a re-created device,
 * reports a failed attach without touching the rest, and detaches when the route goes.
 *
 *   client ── (lan0) router (wan0 10.213.2.1) ── (up0 10.213.2.2) peer      (test/support/datapath-topology.ts)
 */
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApplyResult_Status,
  Command_Kind,
  type ApplyResult,
  type DesiredState,
} from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { ebpfStatus } from '../../../agent/datapath/loader.js';
import { PROGRAM_NAMES } from '../../../core/programs.js';
import { RouterAgent } from '../../../agent/router-agent.js';
import { requireFeatures } from '../../support/datapath-features.js';
import { ADDR, Topology } from '../../support/datapath-topology.js';
import { eventually } from '../../support/controller.js';
import { FakeController } from '../../support/fake-controller.js';
import { FaultHost } from '../../support/fault-host.js';
import { sh } from '../../support/ssh-router.js';
import {
  fourRewritesRun,
  tcxProgIds as routerTcxProgIds,
  wireFromRouter as routerWire,
} from '../../support/router-checks.js';

const topo = new Topology();
/** The agent's host: the router namespace, with a switch to make one command fail or wait. */
const host = new FaultHost(topo.router);
const controller = new FakeController();
const ID = `late-wan:${topo.id}`;
const POLL_MS = 300;
const TTL = 128;
const logs: string[] = [];
let agent: RouterAgent;
let stopped = false;

type Evidence = {
  trigger?: string;
  summary?: string;
  warning?: string;
  eligible?: string[];
  wan?: { before: { ifname: string; ifindex: number }[]; after: { ifname: string; ifindex: number }[] };
};
const evidenceOf = (r: ApplyResult) => (r.evidence ?? {}) as Evidence;
const isWan = (r: ApplyResult) => evidenceOf(r).trigger === 'wan-changed';
const wanReports = () => controller.results(ID).filter(isWan);

let revision = 0;
/** Pushes a revision and waits for its own ApplyResult (not a WAN report). */
async function push(spec: unknown): Promise<ApplyResult> {
  revision += 1;
  const rev = revision;
  controller.send(ID, {
    $case: 'desiredState',
    value: {
      profile: 'p-late',
      revision: rev,
      spec: spec as DesiredState['spec'],
      confirmWindowSeconds: 0,
      rolloutId: '',
    },
  });
  return eventually(
    async () => controller.results(ID).find((r) => r.revision === rev && !isWan(r)),
    20_000,
    `result of revision ${rev}`,
  );
}

/** The next WAN report after the first `seen` ones. */
function nextWanReport(seen: number, what: string): Promise<ApplyResult> {
  return eventually(async () => wanReports()[seen], 10_000, what);
}

async function ifindex(dev = 'wan0'): Promise<number> {
  return (JSON.parse((await host.run(['ip', '-j', 'link', 'show', dev])).stdout) as { ifindex: number }[])[0]!.ifindex;
}

const tcxProgIds = (dev = 'wan0') => routerTcxProgIds(host, dev);
const chainRuns = (dev = 'wan0') => fourRewritesRun(host, topo.pinRoot, dev);
const wireFromRouter = (label: string) => routerWire(topo, label, TTL);

/** Rewrites attached per interface, as the loader's ebpfStatus reads them. */
async function attached(): Promise<Record<string, string[]>> {
  const st = await ebpfStatus(host, { pinRoot: topo.pinRoot });
  return Object.fromEntries(st.interfaces.map((i) => [i.ifname, i.programs.map((p) => p.program)]));
}

/** Polls of the eligible set (the watch's `ip route show default`) seen by the host during `ms`. */
async function routePollsDuring(ms: number): Promise<number> {
  let n = 0;
  host.fault = (argv) => {
    if (argv[0] === 'ip' && argv.includes('route') && argv.includes('default')) n += 1;
    return undefined;
  };
  await new Promise((r) => setTimeout(r, ms));
  host.fault = undefined;
  return n;
}

beforeAll(async () => {
  await topo.create(); // no default route: the WAN is not up yet
  await requireFeatures(topo, ['tcx', 'nftables']);
  await topo.startIperfServer();
  await controller.start();
  agent = new RouterAgent({
    host,
    controller: controller.address,
    placement: 'on_router',
    identity: ID,
    paths: { pinRoot: topo.pinRoot },
    wanWatchMs: POLL_MS,
    reconnect: { jitterWindowMs: 200, initialDelayMs: 100, maxDelayMs: 500 },
    log: (m) => logs.push(m),
  });
  agent.start();
  await eventually(async () => controller.connected(ID), 20_000, 'connected');
}, 120_000);

afterAll(async () => {
  if (!stopped) await agent?.stop().catch(() => undefined);
  await controller.stop();
  await topo.destroy();
});

describe('a WAN that comes up late (eBPF datapath, drift policy report)', () => {
  it('applied with no default route: APPLIED, nothing attached, and the evidence says so', async () => {
    expect((await host.run(['ip', '-4', 'route', 'show', 'default'])).stdout.trim()).toBe('');
    const r = await push({ l3Rewrite: { ttl: { value: TTL } }, drift: { policy: 'report' } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(evidenceOf(r).warning).toMatch(/no eligible WAN interface right now .*nothing attached yet/);
    expect(evidenceOf(r).eligible).toEqual([]);
    expect(agent.manager.current.applied?.plan.drift.policy).toBe('report');
    expect(agent.manager.current.applied?.plan.datapath.mode).toBe('ebpf');
    expect(await attached()).toEqual({});
    expect(await tcxProgIds()).toEqual([]);
  });

  it('the default route appears: the four rewrites are attached on wan0 within seconds, reported, and the wire shows it', async () => {
    const seen = wanReports().length;
    const t0 = Date.now();
    await topo.addDefaultRoute();
    await eventually(() => chainRuns(), 15_000, 'the four rewrites attached on wan0');
    // About a second on a quiet machine; 15 s leaves room for CI's kernel build beside the suite.
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(await attached()).toEqual({ wan0: [...PROGRAM_NAMES] });

    const rep = await nextWanReport(seen, 'WAN report');
    expect(rep.status, rep.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(rep.revision).toBe(revision);
    expect(rep.planHash).toBe(agent.manager.current.applied!.planHash);
    const ev = evidenceOf(rep);
    expect(ev.summary).toBe(`wan changed: attached to wan0 (ifindex ${await ifindex()})`);
    expect(ev.wan).toEqual({ before: [], after: [{ ifname: 'wan0', ifindex: await ifindex() }], skipped: [] });
    expect(ev.eligible).toEqual(['wan0']);
    // Nothing else was re-applied: still the same revision, no new apply of it.
    expect(controller.results(ID).filter((r) => !isWan(r))).toHaveLength(1);

    await wireFromRouter('late-wan-ebpf');
  });

  it('a re-created WAN device (same name, new ifindex, as a redialled pppoe-wan) is re-attached and reported', async () => {
    const old = await ifindex();
    const seen = wanReports().length;
    // Hold the watch's route reads while the device is replaced, so it sees only before and after.
    const hold = join(topo.work, 'hold');
    writeFileSync(hold, '');
    host.fault = (argv) =>
      argv[0] === 'ip' && argv.includes('route') && argv.includes('default')
        ? { replace: ['sh', '-c', `while [ -e ${hold} ]; do sleep 0.02; done; exec "$@"`, 'sh', ...argv] }
        : undefined;
    try {
      await sh(['ip', '-n', topo.ns.router, 'link', 'del', 'wan0']);
      await sh([
        'ip',
        'link',
        'add',
        'wan0',
        'netns',
        topo.ns.router,
        'type',
        'veth',
        'peer',
        'name',
        'up0',
        'netns',
        topo.ns.peer,
      ]);
      await sh(['ip', '-n', topo.ns.router, 'addr', 'add', `${ADDR.routerWan}/24`, 'dev', 'wan0']);
      await sh(['ip', '-n', topo.ns.peer, 'addr', 'add', `${ADDR.peer}/24`, 'dev', 'up0']);
      await sh(['ip', '-n', topo.ns.router, 'link', 'set', 'wan0', 'up']);
      await sh(['ip', '-n', topo.ns.peer, 'link', 'set', 'up0', 'up']);
      await topo.addDefaultRoute();
    } finally {
      rmSync(hold, { force: true });
    }
    host.fault = undefined;
    const now = await ifindex();
    expect(now).not.toBe(old);
    const rep = await nextWanReport(seen, 'WAN report for the re-created device');
    expect(rep.status, rep.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(evidenceOf(rep).summary).toBe(
      `wan changed: re-attached to wan0 (device re-created, ifindex ${old} -> ${now})`,
    );
    expect(await chainRuns()).toBe(true);
    expect(await attached()).toEqual({ wan0: [...PROGRAM_NAMES] });
    await wireFromRouter('late-wan-recreated');
  });

  it('a second WAN whose attach fails: reported as FAILED with the reason, wan0 and the applied revision untouched', async () => {
    const before = await ebpfStatus(host, { pinRoot: topo.pinRoot });
    const applied = agent.manager.current.applied!;
    const seen = wanReports().length;
    host.fault = (argv) =>
      argv[0] === 'bpftool' && argv[2] === 'load' && argv[3]!.includes('-wan1-')
        ? { fail: { code: 255, stdout: '', stderr: 'Error: injected: failed to load program' } }
        : undefined;
    try {
      await sh(['ip', '-n', topo.ns.router, 'link', 'add', 'wan1', 'type', 'veth', 'peer', 'name', 'wan1p']);
      for (const dev of ['wan1p', 'wan1']) await sh(['ip', '-n', topo.ns.router, 'link', 'set', dev, 'up']);
      await sh(['ip', '-n', topo.ns.router, 'route', 'add', 'default', 'dev', 'wan1', 'table', '100']);
      const rep = await nextWanReport(seen, 'WAN report for wan1');
      expect(rep.status).toBe(ApplyResult_Status.STATUS_FAILED);
      expect(rep.error).toMatch(
        /^wan changed: wan1 \(ifindex \d+\) appeared: re-applying the datapath failed: .*injected: failed to load program; the rest of p-late@\d+ is left as it was$/,
      );
      expect((rep.evidence as { differences: { path: string }[] }).differences.map((d) => d.path)).toEqual(
        PROGRAM_NAMES.map((p) => `datapath/wan1/${p}`),
      );
    } finally {
      host.fault = undefined;
    }
    // The rest: wan0's programs are the very same (same prog and link ids), nothing rolled back.
    const after = await ebpfStatus(host, { pinRoot: topo.pinRoot });
    expect(after.interfaces.find((i) => i.ifname === 'wan0')).toEqual(
      before.interfaces.find((i) => i.ifname === 'wan0'),
    );
    expect(agent.manager.current.applied).toEqual(applied);
    expect(controller.results(ID).some((r) => r.status === ApplyResult_Status.STATUS_ROLLED_BACK)).toBe(false);
    await wireFromRouter('late-wan-after-failure');

    // wan1 goes away: its leftovers are cleaned and that is reported too.
    const seen2 = wanReports().length;
    await sh(['ip', '-n', topo.ns.router, 'link', 'del', 'wan1']);
    const rep = await nextWanReport(seen2, 'WAN report for wan1 gone');
    expect(rep.status, rep.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(evidenceOf(rep).summary).toBe('wan changed: detached from wan1');
    expect(await attached()).toEqual({ wan0: [...PROGRAM_NAMES] });
    expect((await host.run(['sh', '-c', `ls ${topo.pinRoot}`])).stdout.trim()).toBe('wan0');
  });

  it('the default route goes away: the programs are detached and that is reported', async () => {
    const seen = wanReports().length;
    await topo.delDefaultRoute();
    await eventually(async () => (await tcxProgIds()).length === 0, 15_000, 'TCX programs gone from wan0');
    const rep = await nextWanReport(seen, 'WAN report');
    expect(rep.status, rep.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(evidenceOf(rep).summary).toBe('wan changed: detached from wan0; no eligible WAN interface now');
    expect(await attached()).toEqual({});
    // gso_max_segs is back to the kernel default (the loader lowered it for IP ID 0).
    expect(JSON.parse((await host.run(['ip', '-d', '-j', 'link', 'show', 'wan0'])).stdout)[0].gso_max_segs).toBe(65535);
  });
});

describe('a WAN that comes up late (nftables datapath)', () => {
  it('applied with no default route, then the route appears: the table matches wan0, reported, and the wire shows it', async () => {
    const r = await push({ l3Rewrite: { ebpf: 'off', ttl: { value: TTL } }, drift: { policy: 'report' } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(agent.manager.current.applied?.plan.datapath.mode).toBe('nftables');
    expect(evidenceOf(r).warning).toMatch(/no eligible WAN interface right now/);
    const table = async () => (await host.run(['nft', 'list', 'table', 'inet', 'wrtfleet'])).stdout;
    expect(await table()).not.toMatch(/oifname/);

    const seen = wanReports().length;
    await topo.addDefaultRoute();
    await eventually(
      async () => /oifname "wan0" ip ttl != 128 ip ttl set 128 counter/.test(await table()),
      15_000,
      'nft rules for wan0',
    );
    const rep = await nextWanReport(seen, 'WAN report');
    expect(rep.status, rep.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(evidenceOf(rep).summary).toBe(`wan changed: attached to wan0 (ifindex ${await ifindex()})`);
    expect(await attached()).toEqual({});
    await wireFromRouter('late-wan-nft');

    const seen2 = wanReports().length;
    await topo.delDefaultRoute();
    await eventually(async () => !/oifname/.test(await table()), 15_000, 'nft rules gone');
    expect(evidenceOf(await nextWanReport(seen2, 'WAN report')).summary).toBe(
      'wan changed: detached from wan0; no eligible WAN interface now',
    );
  });

  it('the watch stops when the plan is removed (DETACH) and when the agent stops', async () => {
    expect(await routePollsDuring(POLL_MS * 4)).toBeGreaterThan(0);
    const seq = controller.send(ID, { $case: 'command', value: { kind: Command_Kind.KIND_DETACH, commandId: '' } });
    const res = await eventually(
      async () => controller.commandResults(ID).find((c) => c.commandSeq === seq),
      10_000,
      'DETACH result',
    );
    expect(res.ok, res.error).toBe(true);
    expect(await routePollsDuring(POLL_MS * 4)).toBe(0);
    // Nothing applied now: a WAN appearing is none of the agent's business.
    const seen = wanReports().length;
    await topo.addDefaultRoute();
    await new Promise((r) => setTimeout(r, POLL_MS * 4));
    expect(wanReports()).toHaveLength(seen);
    expect((await host.run(['nft', 'list', 'table', 'inet', 'wrtfleet'])).code).not.toBe(0);

    // Applied again: polling resumes; the agent stops: polling ends.
    const r = await push({ l3Rewrite: { ttl: { value: TTL } }, drift: { policy: 'report' } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(await chainRuns()).toBe(true);
    expect(await routePollsDuring(POLL_MS * 4)).toBeGreaterThan(0);
    stopped = true;
    await agent.stop();
    expect(await routePollsDuring(POLL_MS * 4)).toBe(0);
    expect(logs.filter((l) => /wan watch:/.test(l))).toEqual([]);
  });
});
