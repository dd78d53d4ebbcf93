/**
 * The router lab benchmark, one command: `npm run bench:lab` (root).
 * Inside one boot of the mipsel guest (a real 6.1 MIPS kernel under QEMU TCG): forwarding
 * throughput and the guest's CPU per packet in each datapath mode, rounds alternating the modes
 * (bench/lab/forwarding-modes.ts), then each program's cost under the MIPS32 JIT and the
 * interpreter with BPF_PROG_TEST_RUN, beside a reference object (bench/lab/program-cost.ts), and
 * the packaged agent's start-up time and idle RSS on the guest's Node 18 (bench/lab/agent-startup.ts).
 * Emulated, so the ratios carry over to a router, not the absolute numbers.
 *
 * knobs: WF_LAB_BENCH_ROUNDS (8), WF_LAB_BENCH_SECONDS (4: each iperf3 run),
 *        WF_LAB_BENCH_PROGRUN_ROUNDS (7), WF_LAB_BENCH_PROGRUN_MS (150: target time of one test run),
 *        WF_BENCH_REFERENCE_OBJ (a BPF object with another implementation's programs under our four
 *        names, e.g. UA3F's tc_bpfel.o; never part of this repository),
 *        WF_LAB_BENCH_AGENT_RESTARTS (3: timed starts of the agent with its saved certificate),
 *        WF_LAB_BENCH_PARTS (forwarding,progrun,agent: run some of them).
 */
import { buildBpfObjects } from '../../lab/bpf-objects.js';
import { startGuest } from '../../lab/guest.js';
import { IperfPath } from '../../lab/checks/iperf-path.js';
import { tcxHelperBinaryFor } from '../../agent/datapath/programs.js';
import { REWRITE } from '../datapath/programs-under-test.js';
import { forwardingBench } from './forwarding-modes.js';
import { programCostBench } from './program-cost.js';
import { agentStartupBench, agentStartupTable } from './agent-startup.js';
import { forwardingTable, programCostTable } from './report.js';

const settings = {
  rounds: Number(process.env.WF_LAB_BENCH_ROUNDS ?? 8),
  seconds: Number(process.env.WF_LAB_BENCH_SECONDS ?? 4),
  progrunRounds: Number(process.env.WF_LAB_BENCH_PROGRUN_ROUNDS ?? 7),
  progrunMs: Number(process.env.WF_LAB_BENCH_PROGRUN_MS ?? 150),
  referenceObject: process.env.WF_BENCH_REFERENCE_OBJ,
  agentRestarts: Number(process.env.WF_LAB_BENCH_AGENT_RESTARTS ?? 3),
  parts: new Set((process.env.WF_LAB_BENCH_PARTS ?? 'forwarding,progrun,agent').split(',')),
};
const HELPER = '/tmp/wrtfleet-wf-tcx';
const log = (line: string) => process.stderr.write(`${line}\n`);

const started = Date.now();
buildBpfObjects();
const guest = await startGuest('mipsel', { jit: true, log });
const out: string[] = [];
try {
  const helper = tcxHelperBinaryFor('mipsel', 'little');
  if (!helper) throw new Error('no wf-tcx build for mipsel: run npm run -s bpf:build');
  await guest.host.writeFile(HELPER, helper, 0o755);
  if (settings.parts.has('forwarding')) {
    const path = await IperfPath.open(guest.namespaces.qemu);
    try {
      const r = await forwardingBench(
        guest.host,
        path,
        { rounds: settings.rounds, seconds: settings.seconds, datapath: { rewrite: REWRITE, helper: HELPER } },
        undefined,
        log,
      );
      out.push(forwardingTable(r));
    } finally {
      await path.close();
    }
  }
  if (settings.parts.has('progrun')) {
    const r = await programCostBench(guest.host, {
      rounds: settings.progrunRounds,
      targetMs: settings.progrunMs,
      referenceObject: settings.referenceObject,
    });
    out.push(programCostTable(r));
  }
  if (settings.parts.has('agent')) {
    const r = await agentStartupBench(guest, { restarts: settings.agentRestarts, idleSeconds: 30 }, log);
    out.push(agentStartupTable(r));
  }
} finally {
  await guest.host.run(['rm', '-f', HELPER]).catch(() => undefined);
  await guest.stop();
}
console.log(
  [
    `Router lab bench: mipsel guest, ${guest.image.manifest.kernelVersion ?? 'kernel'}, QEMU TCG (-M malta -cpu 24Kc), boot ${guest.bootSeconds} s, whole run ${((Date.now() - started) / 1000).toFixed(0)} s`,
    '',
    out.join('\n\n'),
  ].join('\n'),
);
