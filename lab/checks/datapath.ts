/**
 * The datapath on a lab guest, driven as the proxy agent drives an OpenWrt router over SSH:
 * the agent's own modules (facts, agent/probe, resolvePlan, agent/datapath's loader, the apply
 * transaction and its rollback) over the guest's SshHost, with wf-tcx and the BPF objects
 * uploaded for the guest's CPU. What is checked (issue 34, item 2):
 * - the probe loads our program in the guest kernel; TCX is absent (6.1), so the plan and the
 *   loader's auto mode attach with cls_bpf, and the reason is wf-tcx's;
 * - the four rewrites on the wire at the WAN peer, forwarded and router-originated, on eth1
 *   and on the VLAN eth1.100, under the JIT and under the interpreter (bpftool says which);
 * - rollback (commit-confirm and a failed apply) and detach leave the guest as found.
 */
import { createHash } from 'node:crypto';
import { applyTransaction, detachAll, restoreSnapshot } from '../../agent/apply/transaction.js';
import { applyEbpf, detachEbpf, probeTcx, type DatapathEvidence } from '../../agent/datapath/index.js';
import { tcxHelperBinaryFor } from '../../agent/datapath/programs.js';
import { probeCapabilities, type ProbedCapabilities } from '../../agent/probe/index.js';
import { predictCapabilities } from '../../core/capabilities.js';
import { collectFacts } from '../../core/facts/collect.js';
import type { RouterFacts } from '../../core/facts/types.js';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { resolvePlan, type Plan } from '../../core/plan.js';
import { validateProfileSpec } from '../../core/profile-spec.js';
import { PROGRAM_NAMES, type RewriteConfig } from '../../core/programs.js';
import type { CheckedGuest, LabCheck } from './lab-check.js';
import { guestState, stateDiff, UPLOAD_DIR } from './guest-state.js';
import { LabTraffic, type PathExpect, type TrafficReport } from './wire-traffic.js';

/** What the datapath checks need of a booted guest. */
export type DatapathGuest = CheckedGuest;

export interface DatapathCheckResult {
  name: string;
  ok: boolean;
  detail: string;
  numbers: Record<string, number>;
  /** Each failed assertion, in words. */
  failures: string[];
  /** Everything measured, for the report. */
  report: Record<string, unknown>;
}

/** A TTL and window no stack sends by itself, so every rewritten packet shows. */
export const LAB_REWRITE: RewriteConfig = {
  programs: [...PROGRAM_NAMES],
  ttl: 77,
  synWindow: 29200,
  ipv6HopLimit: true,
};
/** The same rewrites as a profile spec, for the plan. */
export const LAB_SPEC = {
  l3Rewrite: { ttl: { value: 77 }, ipv6HopLimit: true, tcpwin: { value: 29200 } },
  flowOffload: { mode: 'off' },
};
export const REWRITTEN: PathExpect = {
  ipv4: { ttl: 77, idZero: true, synWindow: 29200, noSynTimestamp: true },
  hopLimit: 77,
};

/** Collects failures with their context; `ok` is "none so far". */
export class Verdict {
  readonly failures: string[] = [];
  that(cond: boolean, what: string): boolean {
    if (!cond) this.failures.push(what);
    return cond;
  }
  get ok(): boolean {
    return this.failures.length === 0;
  }
}

/**
 * wf-tcx for the guest's CPU, chosen from its facts as the proxy agent chooses it
 * (tcxHelperBinaryFor) and uploaded like RouterAgent.installTcxHelper does: once per content.
 */
export async function installHelper(host: RouterHost, facts: RouterFacts): Promise<{ path: string; bytes: number }> {
  const binary = tcxHelperBinaryFor(facts.arch, facts.endian);
  if (!binary)
    throw new Error(`no wf-tcx build for arch ${facts.arch} (${facts.endian}-endian): run npm run -s bpf:build`);
  const path = `${UPLOAD_DIR}/wrtfleet-wf-tcx`;
  const sha = createHash('sha256').update(binary).digest('hex');
  const there = await host.run(['sha256sum', path]);
  if (!(there.code === 0 && there.stdout.startsWith(sha))) await host.writeFile(path, binary, 0o755);
  return { path, bytes: binary.length };
}

/** Facts, the proxy's helper upload and the probe: what a RouterAgent does before its first plan. */
export async function probeGuest(host: RouterHost) {
  const facts = await collectFacts(host);
  const helper = await installHelper(host, facts);
  const probed = await probeCapabilities(host, { helper: helper.path, uploadDir: UPLOAD_DIR, endian: facts.endian });
  return { facts, helper, probed };
}

/** The plan the agent would resolve for `spec` on this guest (probed flags win over predicted ones). */
export function planFor(
  spec: unknown,
  facts: RouterFacts,
  probed: Pick<ProbedCapabilities, 'flags' | 'reasons'>,
): Plan {
  const v = validateProfileSpec(spec);
  if (!v.ok) throw new Error(`lab spec invalid: ${JSON.stringify(v.errors)}`);
  return resolvePlan(v.spec, {
    facts,
    capabilities: { predicted: predictCapabilities(facts), probed: { ...probed.flags, reasons: probed.reasons } },
  });
}

/**
 * GRO on the guest's LAN NIC off (`on`: back on). Forwarded GRO aggregates cross TC egress once
 * and are split after it with IP IDs 0, 1, 2... (docs/DOMAIN.md; the x86 tests' veth has no
 * GRO): the wire checks hold every packet to ID 0, so the LAN side delivers single segments.
 * ethtool where the guest has it, else gro_max_size 0 (nothing fits an aggregate).
 */
export async function lanGro(host: RouterHost, on: boolean): Promise<string> {
  const e = await host.run(['ethtool', '-K', 'eth0', 'gro', on ? 'on' : 'off']);
  if (e.code === 0) return `ethtool -K eth0 gro ${on ? 'on' : 'off'}`;
  const size = on ? '65536' : '0';
  const i = await host.run(['ip', 'link', 'set', 'dev', 'eth0', 'gro_max_size', size]);
  if (i.code === 0) return `ip link set dev eth0 gro_max_size ${size}`;
  return `GRO left as it is: ethtool ${e.code}, ip ${i.code}: ${(i.stderr || i.stdout).trim()}`;
}

/** Whether the programs of an evidence were JIT-compiled, per prog id (bpftool prog show). */
async function jitedOf(host: RouterHost, ev: DatapathEvidence): Promise<Record<number, boolean>> {
  const out: Record<number, boolean> = {};
  for (const i of ev.interfaces)
    for (const p of i.programs) {
      const j = JSON.parse(await runChecked(host, ['bpftool', '-j', 'prog', 'show', 'id', String(p.progId)])) as {
        bytes_jited?: number;
      };
      out[p.progId] = (j.bytes_jited ?? 0) > 0;
    }
  return out;
}

/** A traffic round's figures, flattened for `numbers`. */
function wireNumbers(prefix: string, r: TrafficReport): Record<string, number> {
  const n: Record<string, number> = { [`${prefix}.seconds`]: r.seconds, [`${prefix}.maxFrame`]: r.maxFrame };
  for (const path of ['plain', 'vlan'] as const) {
    const p = r[path];
    Object.assign(n, {
      [`${prefix}.${path}.ipv4`]: p.ipv4.ipv4,
      [`${prefix}.${path}.tcp`]: p.ipv4.tcp,
      [`${prefix}.${path}.icmp`]: p.ipv4.icmp,
      [`${prefix}.${path}.firstSyns`]: p.ipv4.firstSyns,
      [`${prefix}.${path}.fullChecksums`]: p.ipv4.fullChecksums,
      [`${prefix}.${path}.ipv6`]: p.ipv6.packets,
      [`${prefix}.${path}.ipv6Tcp`]: p.ipv6.tcp,
      [`${prefix}.${path}.violations`]: p.ipv4.violations.length + p.ipv6.violations.length,
    });
  }
  return n;
}

/** Asserts a traffic round: rewritten paths clean and with enough to bite on; left paths untouched. */
export function judgeRound(
  v: Verdict,
  label: string,
  r: TrafficReport,
  rewritten: { plain: boolean; vlan: boolean },
): void {
  for (const path of ['plain', 'vlan'] as const) {
    const p = r[path];
    const at = `${label} ${path}`;
    v.that(p.ipv4.icmp >= 3, `${at}: ${p.ipv4.icmp} ICMP echo requests (>= 3 expected)`);
    v.that(p.ipv4.firstSyns >= 2, `${at}: ${p.ipv4.firstSyns} first SYNs (>= 2 expected: iperf3 control + data)`);
    v.that(p.ipv4.tcp >= 20, `${at}: ${p.ipv4.tcp} TCP packets (>= 20 expected)`);
    v.that(p.ipv4.partialChecksums === 0, `${at}: ${p.ipv4.partialChecksums} CHECKSUM_PARTIAL TCP packets`);
    if (path === 'plain')
      v.that(p.ipv6.tcp >= 5 && p.ipv6.hopLimits.length >= 8, `${at}: too little IPv6 (${p.ipv6.tcp} TCP)`);
    if (rewritten[path]) {
      v.that(p.ipv4.violations.length === 0, `${at}: IPv4 violations ${p.ipv4.violations.join('; ')}`);
      v.that(p.ipv6.violations.length === 0, `${at}: IPv6 violations ${p.ipv6.violations.join('; ')}`);
    } else {
      // Nothing attached on this path: the stacks' own TTLs show (so the check can fail), and
      // nothing else is wrong with the packets.
      v.that(
        p.ipv4.violations.some((x) => /TTL \d+ != 77/.test(x)),
        `${at}: not attached here, yet no packet kept its own TTL`,
      );
      const broken = p.ipv4.violations.filter((x) => /checksum|truncated/.test(x));
      v.that(broken.length === 0, `${at}: ${broken.join('; ')}`);
    }
  }
}

export interface DatapathRunOptions {
  /** net.core.bpf_jit_enable values to run the wire checks under, in order ('leave': as it is). */
  jit: (0 | 1 | 'leave')[];
  /** iperf3 bytes per connection (emulated forwarding is slow). */
  bytes: string;
  /** Progress lines (each step and its seconds). */
  log?: (line: string) => void;
}

/** Items 1, 2 and 4 of the brief on one booted guest. */
export async function runDatapathCheck(
  guest: DatapathGuest,
  opts: DatapathRunOptions = { jit: [1, 0], bytes: '64K' },
): Promise<DatapathCheckResult> {
  const { host, arch } = guest;
  const v = new Verdict();
  const numbers: Record<string, number> = {};
  const report: Record<string, unknown> = {};
  const t0 = Date.now();
  const step = (what: string) => opts.log?.(`${arch} datapath +${((Date.now() - t0) / 1000).toFixed(1)}s: ${what}`);

  // The guest as found, before the agent touches it (the probe creates the pin root, and a
  // detach removes it again).
  const found = await guestState(host);
  // 1. As the proxy agent: facts, wf-tcx for this CPU, the probe loading our program.
  step('snapshot taken; facts, helper upload, probe');
  const { facts, helper, probed } = await probeGuest(host);
  step(`probed: ${probed.reasons.ebpf}`);
  const paths = { helper: helper.path, uploadDir: UPLOAD_DIR };
  const wantEndian = arch === 'mips' ? 'big' : 'little';
  report.facts = { arch: facts.arch, endian: facts.endian, kernel: facts.kernel };
  // The SSH server as the proxy met it (SshHost limits channels on affected dropbear versions).
  report.sshServer = (host as { serverSoftware?: string }).serverSoftware ?? null;
  report.probe = { flags: probed.flags, reasons: probed.reasons, ebpf: probed.details.ebpf, tcx: probed.details.tcx };
  numbers['helper.bytes'] = helper.bytes;
  numbers['probe.ms'] = probed.durationMs;
  v.that(facts.endian === wantEndian, `facts: endian ${facts.endian}, expected ${wantEndian}`);
  v.that(probed.flags.ebpf === true, `probe: eBPF not confirmed: ${probed.reasons.ebpf}`);
  v.that(
    probed.details.ebpf.object === (arch === 'mips' ? 'bpfeb' : 'bpfel'),
    `probe: loaded the ${probed.details.ebpf.object} build`,
  );
  v.that(probed.flags.tcx === false, `probe: TCX ${probed.flags.tcx} on a 6.1 kernel`);

  const plan = planFor(LAB_SPEC, facts, probed);
  report.plan = { datapath: plan.datapath, refusals: plan.refusals, satisfiable: plan.satisfiable };
  v.that(plan.satisfiable, `plan refused: ${JSON.stringify(plan.refusals)}`);
  v.that(plan.datapath.mode === 'ebpf', `plan datapath ${plan.datapath.mode}, expected ebpf`);
  v.that(plan.datapath.attach === 'cls_bpf', `plan attach ${plan.datapath.attach}, expected cls_bpf`);

  const tcx = await probeTcx(host, helper.path);
  report.tcxReason = tcx.reason;
  v.that(!tcx.ok && !!tcx.reason, `wf-tcx probe: ${JSON.stringify(tcx)}`);

  // 2. The wire, under each JIT setting: eth1 (default route) carries both paths, the VLAN
  // tagged; then eth1.100 alone, where the plain path is the control.
  const traffic = await LabTraffic.open(guest.namespaces.qemu);
  const jitBefore = (await host.run(['cat', '/proc/sys/net/core/bpf_jit_enable'])).stdout.trim();
  try {
    report.guestGro = await lanGro(host, false);

    step('baseline traffic (nothing attached)');
    const base = await traffic.capture(() => traffic.traffic(host, opts.bytes), { plain: REWRITTEN, vlan: REWRITTEN });
    Object.assign(numbers, wireNumbers('baseline', base));
    judgeRound(v, 'nothing attached', base, { plain: false, vlan: false });

    for (const jit of opts.jit) {
      if (jit !== 'leave') {
        const set = await host.run(['sh', '-c', `echo ${jit} > /proc/sys/net/core/bpf_jit_enable`]);
        if (!v.that(set.code === 0, `bpf_jit_enable=${jit}: ${set.stderr.trim()}`)) continue;
      }
      for (const [label, interfaces, rewritten] of [
        ['eth1', undefined, { plain: true, vlan: true }],
        ['eth1.100', ['eth1.100'], { plain: false, vlan: true }],
      ] as const) {
        const tag = `jit${jit}.${label}`;
        const t = Date.now();
        step(`${tag}: apply`);
        const ev = await applyEbpf(host, {
          rewrite: LAB_REWRITE,
          mode: 'auto',
          ...paths,
          ...(interfaces ? { interfaces: [...interfaces] } : {}),
        });
        numbers[`${tag}.applyMs`] = Date.now() - t;
        v.that(ev.mode === 'cls_bpf', `${tag}: loader auto mode chose ${ev.mode}, expected cls_bpf`);
        v.that(
          ev.interfaces.map((i) => i.ifname).join() === label,
          `${tag}: attached to ${ev.interfaces.map((i) => i.ifname).join()}`,
        );
        const jited = await jitedOf(host, ev);
        report[`${tag}.jited`] = jited;
        v.that(
          Object.values(jited).length > 0 && (jit === 'leave' || Object.values(jited).every((j) => j === (jit === 1))),
          `${tag}: bpftool prog show jited ${JSON.stringify(jited)} with bpf_jit_enable=${jit}`,
        );
        step(`${tag}: attached (${ev.changes.length} changes), traffic`);
        const r = await traffic.capture(() => traffic.traffic(host, opts.bytes), { plain: REWRITTEN, vlan: REWRITTEN });
        Object.assign(numbers, wireNumbers(tag, r));
        report[`${tag}.violations`] = { plain: r.plain.ipv4.violations, vlan: r.vlan.ipv4.violations };
        judgeRound(v, tag, r, rewritten);
      }
      step(`jit ${jit}: detach`);
      const d = await detachEbpf(host, paths);
      report[`jit${jit}.detach`] = d.changes;
      const diff = stateDiff(found, await guestState(host));
      v.that(diff.length === 0, `jit ${jit}: detach left the guest changed: ${diff.join(' | ')}`);
    }
  } finally {
    await lanGro(host, true);
    if (jitBefore) await host.run(['sh', '-c', `echo ${jitBefore} > /proc/sys/net/core/bpf_jit_enable`]);
    await detachEbpf(host, paths).catch(() => undefined);
    await traffic.close();
  }

  // 4. The agent's rollbacks: commit-confirm (restore the snapshot after an apply), a failed
  // apply (restored inside the transaction), and a plain detach.
  step('transaction, then commit-confirm rollback');
  const applied = await applyTransaction(host, plan, null, { paths });
  v.that(
    applied.status === 'applied',
    `transaction: ${JSON.stringify(applied.status === 'failed' ? applied.error : '')}`,
  );
  report.transaction = applied.status === 'applied' ? applied.evidence : applied;
  if (applied.snapshot) {
    const restored = await restoreSnapshot(host, paths, applied.snapshot);
    v.that(restored.ok, `commit-confirm rollback: ${JSON.stringify(restored)}`);
    const diff = stateDiff(found, await guestState(host));
    v.that(diff.length === 0, `commit-confirm rollback left the guest changed: ${diff.join(' | ')}`);
  }
  step('transaction with an injected failure');
  const failed = await applyTransaction(host, plan, null, {
    paths,
    afterDatapath: () => Promise.reject(new Error('lab: injected failure after the datapath step')),
  });
  v.that(failed.status === 'failed' && failed.restore.ok, `failed apply's rollback: ${JSON.stringify(failed)}`);
  let diff = stateDiff(found, await guestState(host));
  v.that(diff.length === 0, `failed apply's rollback left the guest changed: ${diff.join(' | ')}`);
  step('transaction, then detachAll');
  await applyTransaction(host, plan, null, { paths });
  await detachAll(host, paths);
  diff = stateDiff(found, await guestState(host));
  v.that(diff.length === 0, `detachAll left the guest changed: ${diff.join(' | ')}`);

  numbers['total.seconds'] = (Date.now() - t0) / 1000;
  return {
    name: 'datapath',
    ok: v.ok,
    detail: v.ok
      ? `${arch}: probe loaded ${probed.details.ebpf.object}, cls_bpf (${tcx.reason}); rewrites on the wire (eth1, eth1.100, JIT ${opts.jit.join('/')}); rollbacks and detach leave the guest as found`
      : `${arch}: ${v.failures.length} failures: ${v.failures.slice(0, 5).join(' | ')}`,
    numbers,
    failures: v.failures,
    report,
  };
}

/** For the registry (lab/checks/index.ts): `npm run lab -- check <arch>`. */
export const datapathCheck: LabCheck = {
  name: 'datapath',
  arches: ['mipsel', 'mips'],
  run: (g) => runDatapathCheck(g),
};
