/**
 * What the agent says about a 32-bit MIPS router, checked against the router itself: the facts
 * (arch, byte order, CPU, kernel), the capability table's prediction (core/capabilities.ts:
 * eBPF, TCX, JIT or interpreter) and the on-device probe (agent/probe), which loads one of our
 * programs with net.core.bpf_jit_enable at 1 and at 0. Facts and probe run over SSH, as the
 * proxy placement runs them against routers without Node.js (the big-endian guest has none).
 * The facts the packaged agent reports from the mipsel guest, under its Node 18, are compared
 * with these by the agent-on-router check (one start of Node there costs a minute under TCG).
 *
 * The guests are Debian-userland Malta boxes, not OpenWrt: no release file, no SoC the table
 * knows, no uci. So the facts read "no OpenWrt, no SoC, arch and kernel from the device",
 * flow offloading is predicted and probed unavailable (it is driven through uci), and eBPF
 * stands on the kernel alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { factsSummary, predictCapabilities, type FactsSummary } from '../../core/capabilities.js';
import { collectFacts } from '../../core/facts/index.js';
import { REPO_ROOT } from '../../agent/packaging/esbuild-plugins.js';
import { probeCapabilities, type ProbedCapabilities } from '../../agent/probe/index.js';
import type { RouterHost } from '../../core/host/router-host.js';
import type { Guest } from '../guest.js';
import { resultOf, type CheckResult, type CheckStep, type LabCheck } from './lab-check.js';

const EXPECTED = {
  mipsel: { arch: 'mipsel', endian: 'little', object: 'bpfel' },
  mips: { arch: 'mips', endian: 'big', object: 'bpfeb' },
} as const;
const JIT_SYSCTL = '/proc/sys/net/core/bpf_jit_enable';
const HELPER = '/tmp/wflab-wf-tcx';

const step = (name: string, ok: boolean, detail: string): CheckStep => ({ name, ok, detail });

async function setJit(guest: Guest, value: string): Promise<void> {
  await guest.run(['sh', '-c', `echo ${value} > ${JIT_SYSCTL}`]);
}

function summaryFactSteps(guest: Guest, s: FactsSummary): CheckStep[] {
  const want = EXPECTED[guest.arch];
  return [
    step(
      'arch',
      s.arch === want.arch && s.endian === want.endian && s.machine === 'mips',
      `arch ${s.arch}, ${s.endian}-endian, uname -m ${s.machine}`,
    ),
    step('cpu', /^MIPS 24Kc\b/.test(s.cpu.model ?? ''), `cpu ${s.cpu.model} x${s.cpu.cores}`),
    step('kernel', /^6\.1\./.test(s.kernel ?? ''), `kernel ${s.kernel}`),
    step(
      'not OpenWrt',
      s.openwrt === null && s.soc === null,
      `openwrt ${JSON.stringify(s.openwrt)}, soc ${s.soc} (a Malta board: no SoC in the table)`,
    ),
    step(
      'predicted',
      s.capabilities.ebpf && !s.capabilities.tcx && !s.capabilities.softwareOffload && !s.capabilities.hardwareOffload,
      `predicted eBPF ${s.capabilities.ebpf} (${s.reasons.ebpf}); TCX ${s.capabilities.tcx} (${s.reasons.tcx}); offload ${s.capabilities.softwareOffload}`,
    ),
    step('predicted JIT', s.jit.compiler === true, `JIT compiler predicted ${s.jit.compiler}: ${s.jit.reason}`),
  ];
}

function probeSteps(at1: ProbedCapabilities, at0: ProbedCapabilities, predictedJit: boolean | null): CheckStep[] {
  const e1 = at1.details.ebpf;
  const e0 = at0.details.ebpf;
  return [
    step(
      'probed eBPF',
      at1.flags.ebpf === true && /cls_bpf and clsact are in the kernel/.test(at1.reasons.ebpf ?? ''),
      `${at1.reasons.ebpf}`,
    ),
    step('probed TCX', at1.flags.tcx === false, `TCX ${at1.flags.tcx}: ${at1.reasons.tcx}`),
    step(
      'JIT at 1',
      e1.jited === true && predictedJit === true,
      `bpf_jit_enable=1: set_ip_id_zero ${e1.jited ? `JIT-compiled, ${e1.bytesJited} bytes from ${e1.bytesXlated} of BPF` : 'interpreted'} (predicted compiler: ${predictedJit})`,
    ),
    step(
      'interpreter at 0',
      at0.flags.ebpf === true && e0.jited === false,
      `bpf_jit_enable=0: loads ${e0.loaded}, ${e0.jited ? 'JIT-compiled' : 'interpreted'}`,
    ),
  ];
}

/** Over the guest's SshHost, which reads dropbear's version and runs what it can take at once. */
async function runFacts(guest: Guest): Promise<CheckResult> {
  return factsOver(guest, guest.host);
}

async function factsOver(guest: Guest, ssh: RouterHost): Promise<CheckResult> {
  const numbers: Record<string, number> = {};
  let started = Date.now();
  const facts = await collectFacts(ssh);
  const summary = factsSummary(facts, predictCapabilities(facts));
  numbers.factsOverSshMs = Date.now() - started;
  const steps = summaryFactSteps(guest, summary);

  await guest.host.writeFile(HELPER, readFileSync(join(REPO_ROOT, 'bpf/build', guest.arch, 'wf-tcx')), 0o755);
  const original = ((await guest.host.readFile(JIT_SYSCTL)) ?? '').trim();
  const probe = () =>
    probeCapabilities(ssh, { helper: HELPER, endian: facts.endian, pinRoot: '/sys/fs/bpf/wflab-probe' });
  try {
    await setJit(guest, '1');
    started = Date.now();
    const at1 = await probe();
    numbers.probeOverSshMs = Date.now() - started;
    await setJit(guest, '0');
    const at0 = await probe();
    // Every program (not only the probe's) JIT-compiled at 1 and interpreted at 0: the
    // datapath-testrun check asserts it for all ten objects it loads.
    steps.push(...probeSteps(at1, at0, summary.jit.compiler));
  } finally {
    await setJit(guest, original || '0');
    await guest.run(['rm', '-f', HELPER]);
  }

  return resultOf(steps, numbers);
}

export const routerFacts: LabCheck = {
  name: 'facts',
  arches: ['mipsel', 'mips'],
  run: runFacts,
};
