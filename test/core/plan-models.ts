/** The fixture routers the plan tests resolve plans for, and what every plan must explain. */
import { join } from 'node:path';
import { expect } from 'vitest';
import { type ProgramName } from '../../core/programs.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import { FixtureHost } from '../../agent/sim/fixture-host.js';
import { defaultFixturesDir, extraFixturesDir } from '../../agent/sim/fixtures.js';
import { resolvePlan, type Plan, type PlanRouter } from '../../core/plan.js';
import { validateProfileSpec, type ProfileSpec, type ProfileSpecInput } from '../../core/profile-spec.js';

const fleetFixtures = defaultFixturesDir();
const extraFixtures = extraFixturesDir();

/**
 * What each fixture router is, written down independently of the code under test (the facts
 * tests pin how these were derived). `clsBpfTooling`: false where the package database shows
 * tc-tiny or no kmod-sched-bpf, so cls_bpf attach cannot work until packages are installed.
 */
export interface Model {
  root: string;
  hardwareOffload: boolean;
  softwareOffload: boolean;
  ebpf: boolean;
  tcx: boolean;
  endian: 'bpfel' | 'bpfeb';
  clsBpfTooling: boolean;
  /** The fallback where eBPF does not run: iptables on fw3 routers without nft (docs/DOMAIN.md). */
  netfilter?: 'iptables';
}
export const MODELS: Record<string, Model> = {
  'tplink-archer-c7-v2': {
    root: join(fleetFixtures, 'tplink-archer-c7-v2'),
    hardwareOffload: false,
    softwareOffload: true,
    ebpf: true,
    tcx: false,
    endian: 'bpfeb',
    clsBpfTooling: true,
  },
  'kt-km14-102h-mt7621': {
    root: join(fleetFixtures, 'kt-km14-102h-mt7621'),
    hardwareOffload: true,
    softwareOffload: true,
    ebpf: true,
    tcx: true,
    endian: 'bpfel',
    clsBpfTooling: true,
  },
  'glinet-gl-mt6000-mt7986': {
    root: join(fleetFixtures, 'glinet-gl-mt6000-mt7986'),
    hardwareOffload: true,
    softwareOffload: true,
    ebpf: true,
    tcx: false,
    endian: 'bpfel',
    clsBpfTooling: true,
  },
  'xiaomi-mi-router-ax3000t-mt7981': {
    root: join(extraFixtures, 'xiaomi-mi-router-ax3000t-mt7981'),
    hardwareOffload: true,
    softwareOffload: true,
    ebpf: true,
    tcx: true,
    endian: 'bpfel',
    clsBpfTooling: false,
  },
  'bananapi-bpi-r4-mt7988': {
    root: join(extraFixtures, 'bananapi-bpi-r4-mt7988'),
    hardwareOffload: true,
    softwareOffload: true,
    ebpf: true,
    tcx: true,
    endian: 'bpfel',
    clsBpfTooling: true,
  },
  'dynalink-dl-wrx36-ipq8074': {
    root: join(extraFixtures, 'dynalink-dl-wrx36-ipq8074'),
    hardwareOffload: false,
    softwareOffload: true,
    ebpf: true,
    tcx: false,
    endian: 'bpfel',
    clsBpfTooling: true,
  },
  'netgear-r7800-ipq8065': {
    root: join(extraFixtures, 'netgear-r7800-ipq8065'),
    hardwareOffload: false,
    softwareOffload: true,
    ebpf: true,
    tcx: false,
    endian: 'bpfel',
    clsBpfTooling: true,
  },
  'pcengines-apu2-x86-64': {
    root: join(extraFixtures, 'pcengines-apu2-x86-64'),
    hardwareOffload: false,
    softwareOffload: true,
    ebpf: true,
    tcx: true,
    endian: 'bpfel',
    clsBpfTooling: true,
  },
  'raspberrypi-4-model-b-bcm2711': {
    root: join(extraFixtures, 'raspberrypi-4-model-b-bcm2711'),
    hardwareOffload: false,
    softwareOffload: true,
    ebpf: true,
    tcx: false,
    endian: 'bpfel',
    clsBpfTooling: true,
  },
  'tplink-archer-c6-v2-qca9563': {
    root: join(extraFixtures, 'tplink-archer-c6-v2-qca9563'),
    hardwareOffload: false,
    softwareOffload: true,
    ebpf: true,
    tcx: false,
    endian: 'bpfeb',
    clsBpfTooling: false,
  },
  // fw3 (iptables FLOWOFFLOAD) offloads in software; kernel 4.14 cannot load .rodata globals.
  'tplink-archer-c7-v2-19.07-ar71xx': {
    root: join(extraFixtures, 'tplink-archer-c7-v2-19.07-ar71xx'),
    hardwareOffload: false,
    softwareOffload: true,
    ebpf: false,
    tcx: false,
    endian: 'bpfeb',
    clsBpfTooling: false,
    netfilter: 'iptables',
  },
  // 21.02's mtk_eth_soc PPE takes FLOWOFFLOAD --hw flows; eBPF on 5.4 is predicted, for the probe to confirm.
  'xiaomi-mi-router-4a-gigabit-21.02-mt7621': {
    root: join(extraFixtures, 'xiaomi-mi-router-4a-gigabit-21.02-mt7621'),
    hardwareOffload: true,
    softwareOffload: true,
    ebpf: true,
    tcx: false,
    endian: 'bpfel',
    clsBpfTooling: false,
    netfilter: 'iptables',
  },
};

const facts = new Map<string, RouterFacts>();

/** Collects every model's facts from its fixture tree; call it in a beforeAll. */
export async function loadModelFacts(): Promise<void> {
  for (const [name, model] of Object.entries(MODELS)) facts.set(name, await collectFacts(new FixtureHost(model.root)));
}

export function factsOf(name: string): RouterFacts {
  const f = facts.get(name);
  if (!f) throw new Error(`no facts for ${name}`);
  return f;
}

export function spec(input: ProfileSpecInput): ProfileSpec {
  const result = validateProfileSpec(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.spec;
}

export function planFor(name: string, input: ProfileSpecInput, router: Partial<PlanRouter> = {}): Plan {
  return resolvePlan(spec(input), { facts: factsOf(name), ...router });
}

export const REWRITE_SETS = {
  all: { ttl: { enabled: true }, ipid: true, tcpts: true, tcpwin: { enabled: true } },
  none: { ttl: { enabled: false }, ipid: false, tcpts: false, tcpwin: { enabled: false } },
  'syn-only': { ttl: { enabled: false }, ipid: false, tcpts: true, tcpwin: { enabled: true } },
} as const;
export type RewriteSet = keyof typeof REWRITE_SETS;
export const PROGRAMS_OF: Record<RewriteSet, ProgramName[]> = {
  all: ['set_ip_id_zero', 'set_ip_ttl', 'set_tcp_syn_window', 'clear_tcp_syn_ts'],
  none: [],
  'syn-only': ['set_tcp_syn_window', 'clear_tcp_syn_ts'],
};

export const REQUIRED_TOPICS = [
  'program.set_ip_id_zero',
  'program.set_ip_ttl',
  'program.set_tcp_syn_window',
  'program.clear_tcp_syn_ts',
  'datapath.mode',
  'offload.capability',
  'offload.mode',
  'offload.uci',
  'conflict.hardware-offload-vs-per-packet-rewrite',
  'conflict.offload-bypasses-sqm',
  'commitConfirm.windowSeconds',
  'drift',
];

export function expectExplained(plan: Plan) {
  for (const d of plan.decisions) {
    expect(d.topic, JSON.stringify(d)).not.toBe('');
    expect(d.choice, JSON.stringify(d)).not.toBe('');
    expect(d.reason.length, JSON.stringify(d)).toBeGreaterThan(10);
  }
  const topics = plan.decisions.map((d) => d.topic);
  for (const topic of REQUIRED_TOPICS) expect(topics, topic).toContain(topic);
  // The netfilter conflict is named after the netfilter the plan would rewrite with.
  expect(topics).toContain(
    plan.datapath.mode === 'iptables' ? 'conflict.iptables-rewrite-vs-offload' : 'conflict.nftables-rewrite-vs-offload',
  );
  if (plan.datapath.mode === 'ebpf' && plan.satisfiable)
    for (const t of ['datapath.attach', 'datapath.bpfObject']) expect(topics).toContain(t);
  for (const c of plan.conflicts) expect(c.detail.length).toBeGreaterThan(20);
  for (const r of plan.refusals) expect(r.reason.length).toBeGreaterThan(20);
  expect(plan.satisfiable).toBe(plan.refusals.length === 0);
  // The final offload decision names what the plan writes.
  expect(plan.decisions.find((d) => d.topic === 'offload.mode')?.choice).toBe(plan.offload.mode);
}
