/**
 * Forwarded (and router-originated) throughput over veth with iperf3, client and server pinned to
 * one CPU (-A): unpinned, veth reorders the sender's packets and throughput swings between
 * identical runs (docs/BENCHMARKS.md#datapath-method). Separate runs per mode, then windows of one flow
 * with the modes switched under it; every ratio is paired with "none" of the same round.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NetnsHost } from '../../agent/datapath/netns-host.js';
import { ADDR, type Topology } from '../../test/support/datapath-topology.js';
import { median, ratioCi, shuffled, type RatioCi } from '../statistics.js';
import { EMPTY_PROGRAM_MODE, type Forwarding, type Mode } from './forwarding.js';
import { underOneFlow, type OneFlowOptions } from './one-flow.js';

export interface ThroughputOptions extends OneFlowOptions {
  /** Rounds of separate iperf3 runs, every mode once per round. */
  rounds: number;
  /** Length of one separate iperf3 run. */
  seconds: number;
  windowRounds: number;
  windowMs: number;
  /** The modes the windows compare with "none": prefixes of their names (undefined: all). */
  windowModes?: string[];
}

interface IperfResult {
  gbps: number;
  retransmits: number;
  cpuSecPerGB: number;
}

async function iperf(from: NetnsHost, o: ThroughputOptions): Promise<IperfResult> {
  const r = await from.run(
    ['iperf3', '-c', ADDR.peer, '-p', '5201', '-t', String(o.seconds), '-A', `${o.pinCpu},${o.pinCpu}`, '-J'],
    { timeoutMs: (o.seconds + 20) * 1000 },
  );
  if (r.code !== 0) throw new Error(`iperf3: ${r.stdout.slice(-400)} ${r.stderr}`);
  const j = JSON.parse(r.stdout) as {
    end: {
      sum_sent: { bits_per_second: number; bytes: number; seconds: number; retransmits: number };
      cpu_utilization_percent: { host_total: number; remote_total: number };
    };
  };
  const s = j.end.sum_sent;
  const c = j.end.cpu_utilization_percent;
  // client + server CPU (both in this machine; softirq work runs in their context on the pinned CPU)
  return {
    gbps: s.bits_per_second / 1e9,
    retransmits: s.retransmits,
    cpuSecPerGB: (((c.host_total + c.remote_total) / 100) * s.seconds) / (s.bytes / 1e9),
  };
}

export interface ModeSummary {
  gbps: number;
  best: number;
  ratio: number; // median over rounds of gbps / gbps(none, same round)
  ratioCi: RatioCi; // geometric mean of the same ratios, with its 95 % CI
  ratioTsOff?: number; // same against "none, sender without TCP timestamps"
  ratioTsOffCi?: RatioCi;
  cpuSecPerGB: number;
  cpuRatio: number;
  retransmits: number;
  runs: string[];
}

/** Per traffic kind, separate iperf3 runs of every mode, a new order every round. */
export async function iperfRuns(
  forwarding: Forwarding,
  o: ThroughputOptions,
): Promise<{ kind: string; rows: Record<string, ModeSummary> }[]> {
  const out: { kind: string; rows: Record<string, ModeSummary> }[] = [];
  for (const k of forwarding.kinds) {
    const res: Record<string, IperfResult[]> = Object.fromEntries(Object.keys(k.modes).map((m) => [m, []]));
    await iperf(k.from, o); // warm-up
    for (let round = 0; round < o.rounds; round++) {
      // a new order every round: drift within a round must not always favour the same mode
      for (const name of shuffled(Object.keys(k.modes))) {
        const m = k.modes[name]!;
        await m.on();
        try {
          res[name]!.push(await iperf(k.from, o));
        } finally {
          await m.off();
        }
      }
    }
    const base = res.none!;
    const baseTs = res['none, sender without TCP timestamps']!;
    const rows: Record<string, ModeSummary> = {};
    for (const [name, v] of Object.entries(res)) {
      const paired = (b: IperfResult[], f: (x: IperfResult) => number) => median(v.map((x, i) => f(x) / f(b[i]!)));
      rows[name] = {
        gbps: median(v.map((x) => x.gbps)),
        best: Math.max(...v.map((x) => x.gbps)),
        ratio: paired(base, (x) => x.gbps),
        ratioCi: ratioCi(
          v.map((x) => x.gbps),
          base.map((x) => x.gbps),
        ),
        ...(name.startsWith('none')
          ? {}
          : {
              ratioTsOff: paired(baseTs, (x) => x.gbps),
              ratioTsOffCi: ratioCi(
                v.map((x) => x.gbps),
                baseTs.map((x) => x.gbps),
              ),
            }),
        cpuSecPerGB: median(v.map((x) => x.cpuSecPerGB)),
        cpuRatio: paired(base, (x) => x.cpuSecPerGB),
        retransmits: median(v.map((x) => x.retransmits)),
        runs: v.map((x) => x.gbps.toFixed(2)),
      };
    }
    out.push({ kind: k.kind, rows });
  }
  return out;
}

/**
 * The modes the windows switch: "none", and those of the forwarded modes, the empty program and the
 * candidates whose names start with one of `prefixes` (all without). The TS-off baseline does not
 * apply: the flow's TCP is fixed before any mode runs.
 */
export function windowModes(forwarding: Forwarding, prefixes: string[] | undefined): Record<string, Mode> {
  const modes = Object.fromEntries(
    Object.entries({ ...forwarding.kinds[0]!.modes, [EMPTY_PROGRAM_MODE]: forwarding.emptyProgram }).filter(
      ([name]) =>
        name === 'none' || (!name.startsWith('none, sender') && (prefixes?.some((p) => name.startsWith(p)) ?? true)),
    ),
  );
  return Object.assign(modes, forwarding.candidates);
}

/**
 * Bytes received so far on `dev`, read from /proc/PID/net/dev of a process in the device's
 * namespace: a file read of microseconds, where spawning `ip -s link` would add milliseconds
 * of jitter to every window's edges.
 */
function rxBytes(pid: number, dev: string): number {
  const line = readFileSync(`/proc/${pid}/net/dev`, 'utf8')
    .split('\n')
    .find((l) => l.trim().startsWith(`${dev}:`));
  if (!line) throw new Error(`no ${dev} in /proc/${pid}/net/dev`);
  return Number(line.split(':')[1]!.trim().split(/\s+/)[0]);
}

export interface WindowSummary {
  gbps: number; // median over windows
  ratio: number; // median over rounds of gbps / gbps(none, same round)
  ratioCi: RatioCi;
}

/**
 * Each round gives every mode (shuffled) one window of the one flow and counts the bytes the peer
 * received in it. The flow's TCP was negotiated before any mode ran, so every mode sees the same
 * TCP (timestamps on) and the ratio is the programs' per-packet cost alone; the client numbers its
 * IDs and the router decrements the TTL, so the programs rewrite every packet.
 */
export async function windowsBench(
  topo: Topology,
  modes: Record<string, Mode>,
  o: ThroughputOptions,
): Promise<Record<string, WindowSummary>> {
  // any process in the peer's namespace will do: the iperf3 server is one
  const peerPid = Number(execFileSync('ip', ['netns', 'pids', topo.ns.peer]).toString().trim().split('\n')[0]);
  if (!peerPid) throw new Error(`windows: no process in ${topo.ns.peer}`);
  const rates: Record<string, number[]> = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
  await underOneFlow(topo, modes, o.windowRounds, o, async (name, _mode, flowAlive) => {
    const [b0, t0] = [rxBytes(peerPid, 'up0'), process.hrtime.bigint()];
    await sleep(o.windowMs);
    const [b1, t1] = [rxBytes(peerPid, 'up0'), process.hrtime.bigint()];
    flowAlive();
    rates[name]!.push(((b1 - b0) * 8) / Number(t1 - t0)); // bits per ns = Gbit/s
  });
  const base = rates.none!;
  return Object.fromEntries(
    Object.entries(rates).map(([name, v]) => [
      name,
      { gbps: median(v), ratio: median(v.map((x, i) => x / base[i]!)), ratioCi: ratioCi(v, base) },
    ]),
  );
}
