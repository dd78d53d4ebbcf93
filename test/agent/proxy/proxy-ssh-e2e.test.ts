/**
 * The proxy placement for real: a namespace "router" running Debian's sshd (its own bpffs,
 * a WAN veth to a peer namespace with the default route), managed over SSH by a RouterAgent
 * that talks to a real gRPC controller on loopback (test/support/fake-controller.ts).
 *
 * Probe, apply and SSH failures; commit-confirmed and drift are in
 * proxy-ssh-confirm-drift-e2e.test.ts, the router and controller in proxy-ssh-fixture.ts.
 *
 * Checked from outside the agent: TCX links on wan0 (wf-tcx query), pins, tc filters,
 * nftables, gso_max_segs (full-state dumps), and packets captured in the peer namespace.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApplyResult_Status, type DesiredState } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { LOCAL_TCX_HELPER } from '../../../agent/datapath/programs.js';
import { SshHost } from '../../../core/host/ssh-host.js';
import { RouterAgent } from '../../../agent/router-agent.js';
import { checkWire } from '../../../lab/wire/wire-check.js';
import { eventually } from '../../support/controller.js';
import { nth } from '../../support/fault-host.js';
import { capture } from '../../support/router-state.js';
import { CHAIN_LINKS, ID, proxySshE2e, SPEC } from './proxy-ssh-fixture.js';

const e = proxySshE2e();
const { router, controller, logs, desired, push, state, tcxPrograms } = e;

describe('proxy agent over SSH: probe and Hello', () => {
  it('reports predicted and probed capabilities; eBPF and TCX confirmed by loading a program on the router', () => {
    const hello = controller.hellos.find((h) => h.identity === ID)!.hello;
    expect(hello.agent?.proxyHost).toBe('test-proxy');
    expect(hello.capabilities?.predicted?.ebpf?.value).toBe(true);
    expect(hello.capabilities?.probed?.ebpf).toMatchObject({
      value: true,
      reason: expect.stringMatching(/loaded set_ip_id_zero \(bpfel\) with bpftool/),
    });
    expect(hello.capabilities?.probed?.tcx?.value).toBe(true);
    expect(hello.capabilities?.probed?.softwareOffload).toMatchObject({
      value: false,
      reason: expect.stringMatching(/no uci[\s\S]*no nf_flow_table/),
    });
    expect(e.agent.probed?.details.ebpf.jited).toBe(true);
  });

  it("the proxy brings its own wf-tcx when none is configured: the build for the router's CPU, uploaded over SSH once, used by the probe", async () => {
    const uploadDir = mkdtempSync(join(tmpdir(), 'wf-e2e-helper-'));
    const own: string[] = [];
    const probeOnly = (n: number) =>
      new RouterAgent({
        host: new SshHost({
          host: router.addr.router,
          username: 'root',
          privateKey: router.clientKey,
          hostKeyFingerprint: router.hostKeyFingerprint,
        }),
        controller: controller.address,
        placement: 'proxy',
        identity: `${ID}-own-helper-${n}`,
        paths: { uploadDir, pinRoot: `/sys/fs/bpf/wrtfleet-own-helper-${n}` },
        reconnect: { jitterWindowMs: 200, initialDelayMs: 100, maxDelayMs: 500 },
        log: (m) => own.push(m),
      });
    try {
      for (const n of [1, 2]) {
        const a = probeOnly(n);
        a.start();
        try {
          await eventually(async () => controller.connected(`${ID}-own-helper-${n}`), 20_000, 'connected');
          // This "router" has the test machine's CPU, so it gets the host build; a MIPS router gets its cross build.
          expect(a.probed?.flags.ebpf, JSON.stringify(a.probed?.reasons)).toBe(true);
          expect(a.probed?.flags.tcx).toBe(true);
        } finally {
          await a.stop();
        }
      }
      const there = await router.inside.run(['sha256sum', `${uploadDir}/wrtfleet-wf-tcx`]);
      expect(there.stdout.split(' ')[0]).toBe(
        createHash('sha256').update(readFileSync(LOCAL_TCX_HELPER)).digest('hex'),
      );
      // Uploaded by the first agent; the second found the same content there and left it.
      expect(own.filter((l) => /installed wf-tcx \(\d+ bytes, x86_64\) at /.test(l))).toHaveLength(1);
    } finally {
      for (const n of [1, 2]) await router.inside.run([LOCAL_TCX_HELPER, 'rm', `/sys/fs/bpf/wrtfleet-own-helper-${n}`]);
      rmSync(uploadDir, { recursive: true, force: true });
    }
  });
});

describe('apply over SSH', () => {
  let applied: Record<string, string>;

  it('a plan is applied for real: four TCX programs on wan0 only, verified, with evidence, then confirmed', async () => {
    const empty = await state();
    const r = await push(desired(SPEC));
    expect(r.error).toBe('');
    expect(r.status).toBe(ApplyResult_Status.STATUS_APPLIED);
    const ev = r.evidence as {
      datapath: { ebpf: { ifname: string; mode: string; programs: { program: string }[] }[] };
      eligible: string[];
      offload: unknown;
      timingsMs: { totalMs: number };
    };
    expect(ev.eligible).toEqual(['wan0']);
    expect(ev.datapath.ebpf).toHaveLength(1);
    expect(ev.datapath.ebpf[0]).toMatchObject({ ifname: 'wan0', mode: 'tcx' });
    expect(ev.datapath.ebpf[0]!.programs.map((p) => p.program)).toEqual([
      'set_ip_id_zero',
      'set_ip_ttl',
      'set_tcp_syn_window',
      'clear_tcp_syn_ts',
    ]);
    expect(JSON.stringify(ev.offload)).toMatch(/not OpenWrt|unsupported/);
    // Independently of the agent: the kernel's TCX chain on wan0, nothing on mgmt0.
    expect(await tcxPrograms()).toBe(CHAIN_LINKS);
    applied = await state();
    expect(applied['tcx mgmt0']).toBe(empty['tcx mgmt0']);
    expect(applied.pins).toMatch(/wrtfleet\/wan0\/wf_chain-[0-9a-f]{12}\/link/);
    await eventually(async () => e.agent.manager.current.pending === null, 5_000, 'ConfirmApply processed');
    expect(e.agent.manager.appliedRevision()).toMatchObject({ profile: 'p-e2e', revision: 1, pendingConfirm: false });
  });

  it('passes the wire checks: TTL 77, IP ID 0, first-SYN window 29200, no SYN timestamps (tcpdump in the peer namespace)', async () => {
    await eventually(
      async () =>
        (await router.inside.run(['ss', '-Htln'])).code === 0 &&
        (await router.inside.run(['sh', '-c', `nsenter --net=/run/netns/${router.ns.peer} ss -Htln | grep -q 5201`]))
          .code === 0,
      5_000,
      'iperf3 server',
    );
    const pkts = await capture(router.ns.peer, 'up0', async () => {
      const p = await router.inside.run(['ping', '-c', '3', '-i', '0.2', '-W', '2', router.addr.peer]);
      expect(p.code).toBe(0);
      const t = await router.inside.run(['iperf3', '-c', router.addr.peer, '-p', '5201', '-n', '2M'], {
        timeoutMs: 30_000,
      });
      expect(t.code, t.stderr).toBe(0);
    });
    const rep = checkWire(pkts, {
      ttl: 77,
      idZero: true,
      synWindow: 29200,
      noSynTimestamp: true,
      allowPartialChecksum: true,
    });
    expect(rep.violations).toEqual([]);
    expect(rep.icmp).toBe(3);
    expect(rep.firstSyns).toBeGreaterThanOrEqual(2);
    expect(rep.tcp).toBeGreaterThan(50);
  });

  it('the same revision again changes nothing (planHash + verified live state)', async () => {
    const a = e.agent.manager.current.applied!;
    const before = await state();
    const rawIds = async () =>
      (await router.inside.run(['sh', '-c', `${LOCAL_TCX_HELPER} query $(cat /sys/class/net/wan0/ifindex)`])).stdout;
    const idsBefore = await rawIds();
    const r = await push({
      profile: a.profile,
      revision: a.revision,
      spec: SPEC as DesiredState['spec'],
      confirmWindowSeconds: 0,
      rolloutId: '',
    });
    expect(r.status).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect((r.evidence as { unchanged?: boolean }).unchanged).toBe(true);
    expect(r.planHash).toBe(a.planHash);
    // Not even a reload: the program ids are the same as before (no masking needed).
    expect(idsBefore).toMatch(/prog_id/);
    expect(await rawIds()).toBe(idsBefore);
    expect(await state()).toEqual(before);
  });

  it('a profile the router cannot satisfy is REFUSED with the reasons, nothing touched', async () => {
    const before = await state();
    const n = e.faults.hits.length;
    let commands = 0;
    e.faults.fault = (argv) => {
      if (/^(tc|bpftool|nft|uci|ip)$/.test(argv[0]!) && /add|del|replace|load|set|-f/.test(argv.join(' '))) commands++;
      return undefined;
    };
    const r = await push(desired({ ...SPEC, flowOffload: { mode: 'hardware' }, conflictPolicy: 'prefer-offload' }));
    e.faults.fault = undefined;
    e.revision -= 1; // the refused revision never ran
    expect(r.status).toBe(ApplyResult_Status.STATUS_REFUSED);
    expect(r.error).toMatch(
      /plan not satisfiable on this router: offload.capability: flowOffload.mode is hardware and conflictPolicy is prefer-offload/,
    );
    expect(commands).toBe(0);
    expect(e.faults.hits.length).toBe(n);
    expect(await state()).toEqual(before);
    expect(e.agent.manager.current.applied?.revision).toBe(1);
  });

  it('a forced failure mid-apply (the new chain is attached, detaching the old one fails) leaves the router exactly as before', async () => {
    const before = await state();
    // TTL and window change: a new wf_chain is loaded and attached next to the old one, then the old link is detached: that fails.
    e.faults.fault = nth((argv) => argv[0] === LOCAL_TCX_HELPER && argv[1] === 'detach', 1, {
      fail: { code: 1, stdout: '{"error":"injected: detach refused","errno":1}', stderr: '' },
    });
    const r = await push(desired({ ...SPEC, l3Rewrite: { ttl: { value: 99 }, tcpwin: { value: 1000 } } }));
    expect(e.faults.hits).toHaveLength(1);
    e.faults.fault = undefined;
    expect(r.status).toBe(ApplyResult_Status.STATUS_FAILED);
    expect(r.error).toMatch(/injected: detach refused/);
    expect(r.error).toMatch(/previous state restored and verified/);
    expect(await state()).toEqual(before);
    expect(e.agent.manager.current.applied?.revision).toBe(1);
  });

  it('a command that hangs on the router times out (remote process killed) and the apply rolls back', async () => {
    const before = await state();
    const marker = `100.${process.pid}`;
    e.faults.fault = nth((argv) => argv[0] === 'bpftool' && argv[2] === 'load', 1, { replace: ['sleep', marker] });
    const t0 = Date.now();
    const r = await push(desired({ ...SPEC, l3Rewrite: { ttl: { value: 101 }, tcpwin: { value: 1001 } } }));
    e.faults.fault = undefined;
    expect(r.status).toBe(ApplyResult_Status.STATUS_FAILED);
    expect(r.error).toMatch(/timed out after 4000 ms \(remote command killed\)/);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(await state()).toEqual(before);
    expect((await router.inside.run(['sh', '-c', `ps -eo args | grep -x 'sleep ${marker}'`])).stdout.trim()).toBe('');
  });
});

describe('SSH failures at the agent level', () => {
  it('a wrong password: clear error in the log, no Hello, no retry storm', async () => {
    const before = router.connectionsAccepted();
    const host = new SshHost({
      host: router.addr.router,
      username: 'root',
      password: 'nope',
      hostKeyFingerprint: router.hostKeyFingerprint,
      backoff: { initialMs: 200, maxMs: 60_000 },
    });
    const bad = new RouterAgent({
      host,
      controller: controller.address,
      placement: 'proxy',
      identity: 'bad-pw:01',
      reconnect: { initialDelayMs: 50, maxDelayMs: 200, jitterWindowMs: 100 },
      log: (m) => logs.push(m),
    });
    bad.start();
    await new Promise((r) => setTimeout(r, 3_000));
    await bad.stop();
    expect(controller.hellos.some((h) => h.identity === 'bad-pw:01')).toBe(false);
    expect(host.connectAttempts).toBe(1);
    expect(router.connectionsAccepted() - before).toBe(1);
    expect(logs.some((l) => /authentication failed for user root \(password rejected/.test(l))).toBe(true);
  });
});
