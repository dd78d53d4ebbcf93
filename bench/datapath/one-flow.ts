/**
 * One forwarded iperf3 flow (client -> router -> peer) that lasts a whole measurement, with modes
 * switched under it: windows a fraction of a second apart in one flow share its slow start and
 * the host's load, which separate runs of a few seconds do not.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADDR, type Topology } from '../../test/support/datapath-topology.js';
import { shuffled } from '../statistics.js';
import type { Mode } from './forwarding.js';

export interface OneFlowOptions {
  /** The CPU iperf3 client and server (and thus all softirq work of the path) share. */
  pinCpu: number;
  /** Time after a mode is switched on before its window opens. */
  windowSettleMs: number;
}

/** Runs `measure` once per mode per round (shuffled), each mode switched on under the one flow. */
export async function underOneFlow(
  topo: Topology,
  modes: Record<string, Mode>,
  rounds: number,
  o: OneFlowOptions,
  measure: (name: string, mode: Mode, flowAlive: () => void) => Promise<void>,
) {
  const client = spawn(
    'nsenter',
    [
      `--net=/run/netns/${topo.ns.client}`,
      'iperf3',
      '-c',
      ADDR.peer,
      '-p',
      '5201',
      '-t',
      '86400',
      '-A',
      `${o.pinCpu},${o.pinCpu}`,
    ],
    { stdio: 'ignore' },
  );
  const flowAlive = () => {
    if (client.exitCode !== null) throw new Error(`one flow: the iperf3 client stopped (exit ${client.exitCode})`);
  };
  try {
    await sleep(2000); // past slow start
    for (let round = 0; round < rounds; round++) {
      for (const name of shuffled(Object.keys(modes))) {
        const m = modes[name]!;
        await m.on();
        try {
          await sleep(o.windowSettleMs);
          await measure(name, m, flowAlive);
        } finally {
          await m.off();
        }
      }
    }
  } finally {
    client.kill();
  }
}
