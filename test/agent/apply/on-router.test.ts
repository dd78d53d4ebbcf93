/**
 * The on-router placement, same code path as the proxy: the agent's RouterHost runs
 * commands directly in the router namespace (NetnsHost over LocalHost, as an agent on the
 * device would run them itself), against a real gRPC controller on loopback.
 *
 *   router (wan0 10.202.N.1/30, default route) ── (up0 10.202.N.2/30) peer
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApplyResult_Status,
  Command_Kind,
  OffloadState_Mode,
  type DesiredState,
} from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { FileStateStore } from '../../../agent/apply/state-store.js';
import { NetnsHost } from '../../../agent/datapath/netns-host.js';
import { LOCAL_TCX_HELPER } from '../../../agent/datapath/programs.js';
import { PROGRAM_NAMES } from '../../../core/programs.js';
import { LocalHost } from '../../../core/host/local-host.js';
import { RouterAgent } from '../../../agent/router-agent.js';
import { checkWire } from '../../../lab/wire/wire-check.js';
import { eventually } from '../../support/controller.js';
import { FakeController } from '../../support/fake-controller.js';
import { capture, fullState } from '../../support/router-state.js';
import { FaultHost, nth } from '../../support/fault-host.js';
import { sh } from '../../support/ssh-router.js';

/** TCX links on the WAN: the loader's default layout runs the four rewrites as one wf_chain program. */
const CHAIN_LINKS = 1;

const id = randomBytes(3).toString('hex');
const ns = { router: `wf-onr-${id}-r`, peer: `wf-onr-${id}-p` };
const octet = 1 + (randomBytes(1)[0]! % 250);
const ADDR = { wan: `10.202.${octet}.1`, peer: `10.202.${octet}.2` };
const pinRoot = `/sys/fs/bpf/wrtfleet/test-onr-${id}`;
const local = new LocalHost();
const netns = new NetnsHost(local, ns.router);
/** The agent's host: the namespace, with a switch to make one command fail. */
const host = new FaultHost(netns);
const controller = new FakeController();
const work = mkdtempSync(join(tmpdir(), 'wf-onr-'));
const ID = `on-router:${id}`;
let agent: RouterAgent;

let revision = 0;
async function push(spec: unknown, extra: Partial<DesiredState> = {}) {
  revision += 1;
  const before = controller.results(ID).length;
  controller.send(ID, {
    $case: 'desiredState',
    value: {
      profile: 'p-onr',
      revision,
      spec: spec as DesiredState['spec'],
      confirmWindowSeconds: 0,
      rolloutId: '',
      ...extra,
    },
  });
  return eventually(async () => controller.results(ID)[before], 20_000, `result of revision ${revision}`);
}

async function tcxCount(): Promise<number> {
  // /sys is the host's here (nsenter --net keeps the mount namespace): ask netlink instead.
  const idx = String(
    (JSON.parse((await host.run(['ip', '-j', 'link', 'show', 'wan0'])).stdout) as { ifindex: number }[])[0]!.ifindex,
  );
  return (JSON.parse((await host.run([LOCAL_TCX_HELPER, 'query', idx])).stdout) as { programs: unknown[] }).programs
    .length;
}

const state = () => fullState(host, ['wan0'], pinRoot);

beforeAll(async () => {
  for (const n of Object.values(ns)) {
    await sh(['ip', 'netns', 'add', n]);
    await sh(['ip', '-n', n, 'link', 'set', 'lo', 'up']);
  }
  await sh(['ip', 'link', 'add', 'wan0', 'netns', ns.router, 'type', 'veth', 'peer', 'name', 'up0', 'netns', ns.peer]);
  await sh(['ip', '-n', ns.router, 'addr', 'add', `${ADDR.wan}/30`, 'dev', 'wan0']);
  await sh(['ip', '-n', ns.peer, 'addr', 'add', `${ADDR.peer}/30`, 'dev', 'up0']);
  await sh(['ip', '-n', ns.router, 'link', 'set', 'wan0', 'up']);
  await sh(['ip', '-n', ns.peer, 'link', 'set', 'up0', 'up']);
  await sh(['ip', '-n', ns.router, 'route', 'add', 'default', 'via', ADDR.peer]);
  await controller.start();
  agent = new RouterAgent({
    host,
    controller: controller.address,
    placement: 'on_router',
    identity: ID,
    store: new FileStateStore(join(work, 'state.json')),
    paths: { pinRoot },
    reconnect: { jitterWindowMs: 200, initialDelayMs: 100, maxDelayMs: 500 },
  });
  agent.start();
  await eventually(async () => controller.connected(ID), 20_000, 'connected');
}, 60_000);

afterAll(async () => {
  await agent?.stop().catch(() => undefined);
  await controller.stop();
  for (const n of Object.values(ns)) await local.run(['ip', 'netns', 'del', n]);
  await local.run([LOCAL_TCX_HELPER, 'rm', pinRoot]);
  rmSync(work, { recursive: true, force: true });
});

describe('on-router placement (NetnsHost in a namespace)', () => {
  it('applies the eBPF plan: four TCX programs on wan0, wire checks pass', async () => {
    const r = await push({ l3Rewrite: { ttl: { value: 128 } } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(await tcxCount()).toBe(CHAIN_LINKS);
    const pkts = await capture(ns.peer, 'up0', async () => {
      expect((await host.run(['ping', '-c', '3', '-i', '0.2', '-W', '2', ADDR.peer])).code).toBe(0);
    });
    const rep = checkWire(pkts, { ttl: 128, idZero: true });
    expect(rep.violations).toEqual([]);
    expect(rep.icmp).toBe(3);
  });

  it('telemetry: per-program counters from the pinned maps, offload unsupported with the reason, agent RSS', async () => {
    expect(await agent.sendTelemetry()).toBe(true);
    const t = await eventually(async () => controller.telemetry(ID)[0], 5_000, 'telemetry');
    const ttl = t.programs.find((p) => p.program === 'wan0/set_ip_ttl')!;
    expect(ttl.packetsSeen).toBeGreaterThanOrEqual(3);
    expect(ttl.packetsRewritten).toBeGreaterThanOrEqual(3);
    expect(t.programs.map((p) => p.program).sort()).toEqual([
      'wan0/clear_tcp_syn_ts',
      'wan0/set_ip_id_zero',
      'wan0/set_ip_ttl',
      'wan0/set_tcp_syn_window',
    ]);
    expect(t.offload).toMatchObject({
      mode: OffloadState_Mode.MODE_UNSUPPORTED,
      reason: expect.stringMatching(/no nf_flow_table/),
    });
    expect(t.agentRssBytes).toBeGreaterThan(10_000_000);
  });

  it('a telemetry sample waits for the apply queue, so it never reads a datapath half replaced', async () => {
    const before = controller.telemetry(ID).length;
    let release!: () => void;
    const held = agent.manager.exclusive(() => new Promise<void>((r) => (release = r)));
    const sample = agent.sendTelemetry();
    await new Promise((r) => setTimeout(r, 500));
    expect(controller.telemetry(ID).length).toBe(before);
    release();
    await held;
    expect(await sample).toBe(true);
    await eventually(async () => controller.telemetry(ID).length === before + 1, 5_000, 'the sample after the hold');
  });

  it('an unconfirmed switch to the nftables datapath rolls back when the controller is cut off', async () => {
    await eventually(async () => agent.manager.current.pending === null, 5_000, 'first revision confirmed');
    const confirmed = await state();
    controller.autoConfirm = false;
    const r = await push({ l3Rewrite: { ebpf: 'off', ttl: { value: 70 } } }, { confirmWindowSeconds: 2 });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(await tcxCount()).toBe(0);
    expect((await host.run(['nft', 'list', 'table', 'inet', 'wrtfleet'])).stdout).toMatch(
      /oifname "wan0" ip ttl != 70 ip ttl set 70 counter/,
    );
    await controller.stop();
    try {
      await eventually(async () => agent.manager.current.pending === null, 10_000, 'rollback');
      expect(await state()).toEqual(confirmed);
      expect(await tcxCount()).toBe(CHAIN_LINKS);
      expect((await host.run(['nft', 'list', 'table', 'inet', 'wrtfleet'])).code).not.toBe(0);
    } finally {
      controller.autoConfirm = true;
      await controller.start(controller.port);
    }
    await eventually(
      async () => controller.results(ID).some((x) => x.status === ApplyResult_Status.STATUS_ROLLED_BACK),
      15_000,
      'ROLLED_BACK reported',
    );
  });

  it('a failure in the middle of switching to nftables (eBPF already detached) restores the TCX chain exactly', async () => {
    await eventually(async () => controller.connected(ID), 10_000, 'reconnected');
    const before = await state();
    host.fault = nth((argv) => argv[0] === 'nft' && argv[1] === '-f', 1, {
      fail: { code: 1, stdout: '', stderr: 'Error: injected: Could not process rule: No buffer space available' },
    });
    const r = await push({ l3Rewrite: { ebpf: 'off', ttl: { value: 71 } } });
    host.fault = undefined;
    expect(r.status).toBe(ApplyResult_Status.STATUS_FAILED);
    expect(r.error).toMatch(/injected: Could not process rule[\s\S]*previous state restored and verified/);
    expect(await state()).toEqual(before);
    expect(await tcxCount()).toBe(CHAIN_LINKS);
  });

  it('drift: a TCX program detached by hand is reported, and REPROBE answers', async () => {
    await eventually(async () => controller.connected(ID), 10_000, 'reconnected');
    const dir = (await host.run(['sh', '-c', `ls -d ${pinRoot}/wan0/wf_chain-*`])).stdout.trim();
    expect((await host.run([LOCAL_TCX_HELPER, 'detach', `${dir}/link`])).code).toBe(0);
    controller.send(ID, { $case: 'command', value: { kind: Command_Kind.KIND_CHECK_DRIFT, commandId: '' } });
    const rep = await eventually(async () => controller.driftReports(ID).at(-1), 10_000, 'drift report');
    // The default layout runs the four rewrites in that one program: each is reported missing.
    expect(rep.differences).toEqual(
      PROGRAM_NAMES.map((p) => ({
        path: `datapath/wan0/${p}`,
        expected: expect.stringMatching(/^attached \(tcx/),
        actual: 'missing',
      })),
    );
    const seq = controller.send(ID, { $case: 'command', value: { kind: Command_Kind.KIND_REPROBE, commandId: '' } });
    const res = await eventually(
      async () => controller.commandResults(ID).find((c) => c.commandSeq === seq),
      10_000,
      'REPROBE result',
    );
    expect(res.ok).toBe(true);
    expect(agent.probed?.flags.tcx).toBe(true);
  });

  it('an apply result whose Ack never came is sent again on the next stream, and not after it was acked', async () => {
    await eventually(async () => controller.connected(ID), 10_000, 'reconnected');
    const outbox = () => agent.manager.current.outbox.filter((e) => e.$case === 'applyResult');
    // The result is written and received, but the stream breaks before an Ack (the controller
    // stored it and crashed, or the Ack was lost with the connection).
    controller.autoAck = false;
    const r = await push({ l3Rewrite: { ttl: { value: 72 } } });
    expect(r.status, r.error).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(r.resultId).toMatch(/^[0-9a-f-]{36}$/);
    const sent = () => controller.allResults(ID).filter((x) => x.resultId === r.resultId).length;
    expect(outbox().map((e) => e.value.resultId)).toEqual([r.resultId]);
    await controller.stop();
    controller.autoAck = true;
    await controller.start(controller.port);
    // Sent again on the new stream, acked, and then gone from the agent's state file too.
    await eventually(async () => sent() === 2, 15_000, 'the result re-sent');
    await eventually(async () => outbox().length === 0, 5_000, 'acked and dropped');
    expect(controller.results(ID).filter((x) => x.resultId === r.resultId)).toHaveLength(1);
    // The state file follows the in-memory outbox once the Ack's save has finished (onAck
    // drops the entry, then writes the file): wait for that write, do not race it.
    const savedOutbox = async () =>
      (JSON.parse(await readFile(join(work, 'state.json'), 'utf8')) as { outbox: unknown[] }).outbox;
    await eventually(async () => (await savedOutbox()).length === 0, 5_000, 'dropped from the state file');
    expect(await savedOutbox()).toEqual([]);
    // Acked: another reconnect sends it no more.
    await controller.stop();
    await controller.start(controller.port);
    await eventually(async () => controller.connected(ID), 15_000, 'reconnected');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(sent()).toBe(2);
  });
});
