/**
 * The programs' run time in the datapath, from the kernel's own accounting (kernel.bpf_stats_enabled:
 * run_time_ns and run_cnt per program, the time around each bpf_prog_run), over windows of one
 * forwarded flow. Kept apart from the throughput windows: the accounting slows every run a little
 * while it is on.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Topology } from '../../test/support/datapath-topology.js';
import { median } from '../statistics.js';
import { EMPTY_PROGRAM_MODE, type Mode } from './forwarding.js';
import { underOneFlow, type OneFlowOptions } from './one-flow.js';

export interface RunTimeOptions extends OneFlowOptions {
  runTimeRounds: number;
  runTimeMs: number;
}

export interface RunTimeSummary {
  nsPerPacket: number; // median over rounds: the mode's programs' run time per forwarded packet
  packetsPerSecond: number; // median over rounds
  cpuShare: number; // median over rounds of nsPerPacket / (1 s / packets per second)
  programs: number; // programs the mode runs per packet: each pays the accounting's clock reads
}

/** Sum of run_time_ns and the largest run_cnt over `ids` (every program of a mode sees every packet). */
function runStats(ids: number[]): { ns: number; runs: number } {
  let ns = 0;
  let runs = 0;
  for (const id of ids) {
    const j = JSON.parse(execFileSync('bpftool', ['-j', 'prog', 'show', 'id', String(id)]).toString()) as {
      run_time_ns?: number;
      run_cnt?: number;
    };
    if (j.run_cnt === undefined)
      throw new Error(`run time: prog ${id} reports no run_cnt (kernel.bpf_stats_enabled off?)`);
    ns += j.run_time_ns ?? 0;
    runs = Math.max(runs, j.run_cnt);
  }
  return { ns, runs };
}

/** The modes among `modes` that run BPF programs, and the empty program always: it is the accounting's floor. */
export function timedModes(modes: Record<string, Mode>, emptyProgram: Mode): Record<string, Mode> {
  return Object.fromEntries(
    Object.entries({ ...modes, [EMPTY_PROGRAM_MODE]: emptyProgram }).filter(([, m]) => m.progIds),
  );
}

/**
 * ns per forwarded packet of each mode's programs. Every run also pays the accounting's two clock
 * reads, which the empty program's row shows; a mode's own cost is its row minus that one. The share
 * of the CPU is ns per packet against the time the pinned CPU spends per packet in all (1 s / packets
 * per second: client, router and peer share it).
 */
export async function runTimeBench(
  topo: Topology,
  modes: Record<string, Mode>,
  o: RunTimeOptions,
): Promise<Record<string, RunTimeSummary>> {
  const sample: Record<string, { nsPerPacket: number; pps: number; programs: number }[]> = Object.fromEntries(
    Object.keys(modes).map((m) => [m, []]),
  );
  const before = execFileSync('sysctl', ['-n', 'kernel.bpf_stats_enabled']).toString().trim();
  execFileSync('sysctl', ['-qw', 'kernel.bpf_stats_enabled=1']);
  try {
    await underOneFlow(topo, modes, o.runTimeRounds, o, async (name, mode, flowAlive) => {
      const ids = [...new Set(await mode.progIds!())];
      const [s0, t0] = [runStats(ids), process.hrtime.bigint()];
      await sleep(o.runTimeMs);
      const [s1, t1] = [runStats(ids), process.hrtime.bigint()];
      flowAlive();
      const packets = s1.runs - s0.runs;
      if (packets <= 0) throw new Error(`run time: ${name} ran on no packet in ${o.runTimeMs} ms`);
      sample[name]!.push({
        nsPerPacket: (s1.ns - s0.ns) / packets,
        pps: (packets * 1e9) / Number(t1 - t0),
        programs: ids.length,
      });
    });
  } finally {
    execFileSync('sysctl', ['-qw', `kernel.bpf_stats_enabled=${before}`]);
  }
  return Object.fromEntries(
    Object.entries(sample).map(([name, v]) => [
      name,
      {
        nsPerPacket: median(v.map((x) => x.nsPerPacket)),
        packetsPerSecond: median(v.map((x) => x.pps)),
        cpuShare: median(v.map((x) => (x.nsPerPacket * x.pps) / 1e9)),
        programs: Math.max(...v.map((x) => x.programs)),
      },
    ]),
  );
}
