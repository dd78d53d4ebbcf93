/**
 * The packaged agent's start-up on the mipsel guest's Node 18, as a router's boot pays it: the
 * first start (key pair, CSR, enrollment, then Hello) once, then `restarts` starts with the
 * saved certificate, each timed from the init script's exec to the controller's Hello; then the
 * agent idles connected and its RSS is read from /proc. Emulated CPU: the seconds are the
 * guest's, a real 880 MHz 1004Kc is faster; what carries over is the split between node's own
 * start and the agent's.
 */
import type { Guest } from '../../lab/guest.js';
import {
  agentRss,
  installAgentBundle,
  startAgent,
  startLabController,
  stopAgent,
  waitFor,
  enrollAgent,
} from '../../lab/agent-on-guest.js';
import { median } from '../statistics.js';

export interface AgentStartupResult {
  node: string;
  /** `node -e 1`: the runtime's own start on this CPU. */
  bareNodeMs: number[];
  enrollToHelloMs: number;
  restartToHelloMs: number[];
  idleRssKiB: number;
  peakRssKiB: number;
  idleSeconds: number;
}

export async function agentStartupBench(
  guest: Guest,
  opts: { restarts: number; idleSeconds: number },
  log: (line: string) => void,
): Promise<AgentStartupResult> {
  const node = (await guest.run(['node', '--version'])).stdout.trim();
  const bareNodeMs: number[] = [];
  for (let i = 0; i < 2; i++) {
    const t = Date.now();
    await guest.run(['node', '-e', '1'], { timeoutMs: 300_000 });
    bareNodeMs.push(Date.now() - t);
  }
  await installAgentBundle(guest);
  const lab = await startLabController(guest);
  try {
    const { enrollToHelloMs, runArgs } = await enrollAgent(guest, lab);
    log(`agent: enrolled, Hello after ${(enrollToHelloMs / 1000).toFixed(1)} s`);
    const restartToHelloMs: number[] = [];
    for (let i = 0; i < opts.restarts; i++) {
      await stopAgent(guest);
      await waitFor('the stream to close', 120_000, () => (lab.sessions().length === 0 ? true : undefined));
      const t = await startAgent(guest, runArgs);
      await waitFor('the Hello after a restart', 900_000, () => lab.sessions()[0]);
      restartToHelloMs.push(Date.now() - t);
      log(`agent: restart ${i + 1}, Hello after ${(restartToHelloMs.at(-1)! / 1000).toFixed(1)} s`);
    }
    await new Promise((r) => setTimeout(r, opts.idleSeconds * 1000));
    const rss = await agentRss(guest);
    return {
      node,
      bareNodeMs,
      enrollToHelloMs,
      restartToHelloMs,
      idleRssKiB: rss.rssKiB,
      peakRssKiB: rss.peakKiB,
      idleSeconds: opts.idleSeconds,
    };
  } finally {
    await stopAgent(guest).catch(() => undefined);
    await lab.stop();
  }
}

export function agentStartupTable(r: AgentStartupResult): string {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const restarts = r.restartToHelloMs;
  return [
    `The packaged agent on the guest's Node (${r.node}), started as the procd init script starts it (seconds of emulated 24Kc):`,
    '',
    '| what | seconds |',
    '| --- | --- |',
    `| \`node -e 1\` (the runtime alone) | ${r.bareNodeMs.map(s).join(', ')} |`,
    `| first start: key pair, CSR, enrollment, Hello | ${s(r.enrollToHelloMs)} |`,
    `| start with the saved certificate to Hello (median of ${restarts.length}; each) | ${s(median(restarts))} (${restarts.map(s).join(', ')}) |`,
    `| RSS after ${r.idleSeconds} s connected and idle (peak) | ${(r.idleRssKiB / 1024).toFixed(1)} MiB (${(r.peakRssKiB / 1024).toFixed(1)} MiB) |`,
  ].join('\n');
}
