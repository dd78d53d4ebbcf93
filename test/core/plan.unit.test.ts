import { beforeAll, describe, expect, it } from 'vitest';
import { predictCapabilities } from '../../core/capabilities.js';
import { validateRewrite } from '../../core/programs.js';
import { type RouterFacts } from '../../core/facts/index.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { computePlanHash, resolvePlan, rewriteConfigOf } from '../../core/plan.js';
import { type ProfileSpecInput } from '../../core/profile-spec.js';
import { factsOf, loadModelFacts, planFor, REWRITE_SETS, spec } from './plan-models.js';

beforeAll(loadModelFacts);

describe('plan: which datapath runs the rewrites', () => {
  it('19.07 C7 (kernel 4.14): no eBPF (.rodata globals need 5.2); iptables runs TTL and TCPOPTSTRIP, names the rest', () => {
    const auto = planFor('tplink-archer-c7-v2-19.07-ar71xx', { l3Rewrite: { ebpf: 'auto' } });
    expect(auto.satisfiable).toBe(true);
    expect(auto.datapath).toMatchObject({ mode: 'iptables', attach: null, bpfObject: null });
    expect(auto.datapath.programs.map((p) => p.name)).toEqual(['set_ip_ttl', 'clear_tcp_syn_ts']);
    expect(auto.datapath.unavailable).toEqual([
      { program: 'set_ip_id_zero', reason: expect.stringMatching(/no target that writes the IPv4 ID/) },
      { program: 'set_tcp_syn_window', reason: expect.stringMatching(/no target that sets the TCP window/) },
    ]);
    const mode = auto.decisions.find((d) => d.topic === 'datapath.mode')!;
    expect(mode.reason).toContain('kernel 4.14.275 < 5.2');
    expect(mode.reason).toMatch(/TTL --ttl-set 64, .*TCPOPTSTRIP --strip-options timestamp/);
    expect(auto.warnings).toContain(
      'iptables fallback: set_ip_id_zero, set_tcp_syn_window cannot run (no iptables target); install nftables to run them',
    );
    // fw3 offloads in software (ag71xx has no engine), which would skip the TTL rule: prefer-rewrite turns it off.
    expect(auto.offload.mode).toBe('off');
    expect(auto.conflicts.map((c) => c.id)).toEqual(['iptables-rewrite-vs-offload']);
    expect(auto.conflicts[0]?.detail).toMatch(
      /fw3's iptables FLOWOFFLOAD rule .* iptables mangle rules for TTL rewriting/,
    );
    expect(auto.prerequisites.map((p) => p.package)).toEqual(['iptables-mod-ipopt']);

    const on = planFor('tplink-archer-c7-v2-19.07-ar71xx', { l3Rewrite: { ebpf: 'on' } });
    expect(on.satisfiable).toBe(false);
    expect(on.refusals).toEqual([
      { topic: 'capability.ebpf', reason: expect.stringContaining('kernel 4.14.275 < 5.2') },
    ]);
  });

  it('21.02 MT7621 (kernel 5.4): eBPF predicted for the probe to confirm; hardware offload through fw3', () => {
    const auto = planFor('xiaomi-mi-router-4a-gigabit-21.02-mt7621', {
      l3Rewrite: REWRITE_SETS['syn-only'],
      flowOffload: { mode: 'hardware' },
      conflictPolicy: 'prefer-offload',
    });
    expect(auto.capabilities.ebpf).toMatchObject({ value: true, source: 'predicted' });
    expect(auto.capabilities.ebpf.reason).toMatch(/5\.4\.238 < 5\.15 .*the probe decides/);
    expect(auto.capabilities.hardwareOffload.value).toBe(true);
    // No tc and no cls_bpf installed: auto falls back, here to iptables (no nft either).
    expect(auto.datapath.mode).toBe('iptables');
    expect(auto.offload.mode).toBe('hardware');
    expect(auto.satisfiable).toBe(true);

    // The probe found the kernel cannot load our programs: the plan follows the device.
    const probedNo = planFor(
      'xiaomi-mi-router-4a-gigabit-21.02-mt7621',
      { l3Rewrite: { ebpf: 'on' } },
      { capabilities: { probed: { ebpf: false, reasons: { ebpf: 'probe: bpftool prog load: Invalid argument' } } } },
    );
    expect(probedNo.satisfiable).toBe(false);
    expect(probedNo.refusals[0]?.reason).toMatch(
      /probe: bpftool prog load: Invalid argument, overriding the prediction/,
    );
  });

  it('a fw3 router with nft installed gets the nftables rules (all four), not iptables', () => {
    const f = factsOf('xiaomi-mi-router-4a-gigabit-21.02-mt7621');
    const withNft = { ...f, packages: { ...f.packages, nft: true } };
    const plan = resolvePlan(spec({ l3Rewrite: { ebpf: 'off' } }), { facts: withNft });
    expect(plan.datapath.mode).toBe('nftables');
    expect(plan.datapath.programs).toHaveLength(4);
    expect(plan.datapath.unavailable).toBeUndefined();
    expect(plan.warnings.join(' ')).toMatch(/nftables rewriting on a fw3 \(iptables\) release/);
  });

  it('the iptables fallback with only IP-ID zeroing runs nothing, and says so', () => {
    const plan = planFor('tplink-archer-c7-v2-19.07-ar71xx', {
      l3Rewrite: { ...REWRITE_SETS.none, ipid: true },
    });
    expect(plan).toMatchObject({ satisfiable: true, datapath: { mode: 'none', programs: [] } });
    expect(plan.datapath.unavailable?.map((u) => u.program)).toEqual(['set_ip_id_zero']);
    expect(plan.decisions.find((d) => d.topic === 'datapath.mode')?.reason).toMatch(/so nothing runs/);
  });

  it('unknown endianness: refusal under ebpf on, nftables under auto', () => {
    const f = { ...factsOf('kt-km14-102h-mt7621'), endian: null };
    const on = resolvePlan(spec({ l3Rewrite: { ebpf: 'on' } }), { facts: f });
    expect(on.satisfiable).toBe(false);
    expect(on.refusals).toEqual([
      { topic: 'datapath.bpfObject', reason: expect.stringMatching(/byte order unknown.*bpfel or bpfeb/) },
    ]);
    expect(on.datapath.bpfObject).toBeNull();

    const auto = resolvePlan(spec({ l3Rewrite: { ebpf: 'auto' } }), { facts: f });
    expect(auto.satisfiable).toBe(true);
    expect(auto.datapath.mode).toBe('nftables');
    expect(auto.decisions.find((d) => d.topic === 'datapath.mode')?.reason).toMatch(/byte order unknown/);

    // Facts of the capability shape only (no endian field at all) count as unknown too.
    const { endian: _dropped, ...withoutEndian } = factsOf('kt-km14-102h-mt7621');
    expect(resolvePlan(spec({ l3Rewrite: { ebpf: 'on' } }), { facts: withoutEndian }).satisfiable).toBe(false);
  });

  it('a probed eBPF=false overrides a predicted true (and takes TCX with it)', () => {
    const f = factsOf('kt-km14-102h-mt7621');
    const predicted = predictCapabilities(f);
    expect(predicted.ebpf).toBe(true);
    const probed = { ebpf: false, reasons: { ebpf: 'loading a test program failed: EPERM' } };

    const auto = resolvePlan(spec({ l3Rewrite: { ebpf: 'auto' }, flowOffload: { mode: 'off' } }), {
      facts: f,
      capabilities: { predicted, probed },
    });
    expect(auto.capabilities.ebpf).toEqual({
      value: false,
      source: 'probed',
      reason: expect.stringMatching(/^loading a test program failed: EPERM, overriding the prediction \(true/),
    });
    expect(auto.capabilities.tcx.value).toBe(false);
    expect(auto.datapath.mode).toBe('nftables');

    const on = resolvePlan(spec({ l3Rewrite: { ebpf: 'on' } }), { facts: f, capabilities: { predicted, probed } });
    expect(on.satisfiable).toBe(false);
    expect(on.refusals[0]?.reason).toMatch(/EPERM/);

    // A probe that only denies TCX keeps eBPF and attaches with cls_bpf.
    const noTcx = resolvePlan(spec({}), { facts: f, capabilities: { predicted, probed: { ebpf: true, tcx: false } } });
    expect(noTcx.datapath).toMatchObject({ mode: 'ebpf', attach: 'cls_bpf' });
    expect(noTcx.capabilities.ebpf.reason).toMatch(/confirming the prediction/);
  });

  it('cls_bpf tooling missing (tc-tiny, no kmod-sched-bpf): auto falls back to nftables, on keeps eBPF with prerequisites', () => {
    const auto = planFor('tplink-archer-c6-v2-qca9563', { l3Rewrite: { ebpf: 'auto' } });
    expect(auto.datapath.mode).toBe('nftables');
    expect(auto.decisions.find((d) => d.topic === 'datapath.mode')?.reason).toMatch(
      /tc-bpf and kmod-sched-bpf are installed/,
    );
    const on = planFor('tplink-archer-c6-v2-qca9563', { l3Rewrite: { ebpf: 'on' } });
    expect(on).toMatchObject({ satisfiable: true, datapath: { mode: 'ebpf', attach: 'cls_bpf', bpfObject: 'bpfeb' } });
    expect(on.prerequisites.map((p) => p.package)).toEqual(['tc-bpf', 'kmod-sched-bpf']);
    // TCX needs neither: the MT7981 box has tc-tiny but attaches through bpf_link.
    expect(planFor('xiaomi-mi-router-ax3000t-mt7981', {}).datapath).toMatchObject({ mode: 'ebpf', attach: 'tcx' });
  });

  it('program config: TTL, IPv6 hop limit and SYN window reach the programs', () => {
    const plan = planFor('kt-km14-102h-mt7621', {
      l3Rewrite: { ttl: { value: 128 }, ipv6HopLimit: true, tcpwin: { value: 29200 } },
    });
    expect(plan.datapath.programs).toEqual([
      { name: 'set_ip_id_zero', scope: 'every-packet', config: {} },
      { name: 'set_ip_ttl', scope: 'every-packet', config: { ttl: 128, ipv6HopLimit: true } },
      { name: 'set_tcp_syn_window', scope: 'first-syn', config: { window: 29200 } },
      { name: 'clear_tcp_syn_ts', scope: 'first-syn', config: {} },
    ]);
  });

  it('no rewrites: datapath none, and ebpf on requires nothing even where eBPF is missing', () => {
    const plan = planFor('tplink-archer-c7-v2-19.07-ar71xx', { l3Rewrite: { ...REWRITE_SETS.none, ebpf: 'on' } });
    expect(plan).toMatchObject({
      satisfiable: true,
      datapath: { mode: 'none', attach: null, bpfObject: null, programs: [] },
    });
  });

  it('a Linux host that is not OpenWrt: no uci to write, offloading not managed', () => {
    const plan = resolvePlan(spec({ flowOffload: { mode: 'auto' } }), {
      facts: { soc: null, socFamily: null, kernel: '6.1.0-18-amd64', openwrt: null, arch: 'x86_64', endian: 'little' },
    });
    expect(plan.offload).toEqual({ requested: 'auto', mode: 'off', uci: null });
    expect(plan.datapath).toMatchObject({ mode: 'ebpf', attach: 'cls_bpf', bpfObject: 'bpfel' });
    expect(plan.decisions.find((d) => d.topic === 'offload.uci')?.reason).toMatch(/not OpenWrt/);
  });

  it('commit-confirm window and drift policy are carried into the plan', () => {
    const plan = planFor('kt-km14-102h-mt7621', {
      commitConfirm: { windowSeconds: 120 },
      drift: { policy: 'reapply', intervalSeconds: 600 },
    });
    expect(plan.commitConfirm).toEqual({ windowSeconds: 120 });
    expect(plan.drift).toEqual({ policy: 'reapply', intervalSeconds: 600 });
  });

  it("the plan's program names are the datapath's, and rewriteConfigOf hands the datapath its config", () => {
    const plan = planFor('kt-km14-102h-mt7621', {
      l3Rewrite: { ttl: { value: 128 }, ipv6HopLimit: true, tcpwin: { value: 29200 }, ipid: false },
    });
    const config = rewriteConfigOf(plan);
    expect(config).toEqual({
      programs: ['set_ip_ttl', 'set_tcp_syn_window', 'clear_tcp_syn_ts'],
      ttl: 128,
      synWindow: 29200,
      ipv6HopLimit: true,
    });
    expect(() => validateRewrite(config)).not.toThrow();
    expect(rewriteConfigOf(planFor('kt-km14-102h-mt7621', { l3Rewrite: REWRITE_SETS.none })).programs).toEqual([]);
  });
});

describe('planHash', () => {
  const model = 'kt-km14-102h-mt7621';

  it('is deterministic: same input, same plan, same hash, whatever the key order of the input', () => {
    const a = planFor(model, {});
    const b = planFor(model, {});
    expect(b).toEqual(a);
    const reordered = Object.fromEntries(Object.entries(factsOf(model)).reverse()) as unknown as RouterFacts;
    expect(resolvePlan(spec({}), { facts: reordered }).planHash).toBe(a.planHash);
    // Precomputed predictions give the same plan as letting resolvePlan predict.
    expect(
      resolvePlan(spec({}), {
        facts: factsOf(model),
        capabilities: { predicted: predictCapabilities(factsOf(model)) },
      }),
    ).toEqual(a);
  });

  it('changes when an actionable field changes', () => {
    const base = planFor(model, {}).planHash;
    const variants: ProfileSpecInput[] = [
      { l3Rewrite: { ttl: { value: 65 } } },
      { l3Rewrite: { ipid: false } },
      { l3Rewrite: { ipv6HopLimit: true } },
      { l3Rewrite: { tcpwin: { value: 65534 } } },
      { l3Rewrite: { ebpf: 'off' } },
      { flowOffload: { mode: 'off' } },
      { conflictPolicy: 'prefer-offload' },
      { commitConfirm: { windowSeconds: 61 } },
      { drift: { policy: 'reapply' } },
      { drift: { intervalSeconds: 301 } },
    ];
    const hashes = variants.map((v) => planFor(model, v).planHash);
    for (const [i, hash] of hashes.entries()) expect(hash, JSON.stringify(variants[i])).not.toBe(base);
    expect(new Set(hashes).size).toBe(hashes.length);
    // A probe that changes the attach method changes the plan.
    expect(planFor(model, {}, { capabilities: { probed: { tcx: false } } }).planHash).not.toBe(base);
  });

  it('does not change when only wording does', () => {
    const plan = planFor(model, { flowOffload: { mode: 'hardware' } });
    const { planHash, ...rest } = plan;
    const reworded = {
      ...rest,
      decisions: rest.decisions.map((d) => ({ ...d, reason: `${d.reason} (reworded)` })),
      conflicts: rest.conflicts.map((c) => ({ ...c, detail: 'other words' })),
      warnings: ['another warning'],
      capabilities: { ...rest.capabilities, ebpf: { ...rest.capabilities.ebpf, reason: 'said differently' } },
      prerequisites: rest.prerequisites.map((p) => ({ ...p, reason: 'x' })),
    };
    expect(computePlanHash(reworded)).toBe(planHash);
    // Predicted reasons supplied in other words: same plan hash.
    const predicted = predictCapabilities(factsOf(model));
    const otherWords = { ...predicted, reasons: { ebpf: 'e', tcx: 't', softwareOffload: 's', hardwareOffload: 'h' } };
    expect(
      planFor(model, { flowOffload: { mode: 'hardware' } }, { capabilities: { predicted: otherWords } }).planHash,
    ).toBe(planHash);
  });

  it('two profiles that lead to the same actions are the same plan', () => {
    // hardware downgraded to software by prefer-rewrite == software asked for directly.
    const downgraded = planFor(model, { flowOffload: { mode: 'hardware' } });
    const direct = planFor(model, { flowOffload: { mode: 'software' } });
    expect(downgraded.offload.mode).toBe('software');
    expect(downgraded.planHash).toBe(direct.planHash);
  });

  it('canonical JSON sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
  });
});
