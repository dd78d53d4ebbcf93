/**
 * `npm run -s bench:agent`: the agent's numbers (docs/BENCHMARKS.md#agent).
 *
 *  1. bundle size (dist/agent/agent.cjs, budget 3 MB)
 *  2. on-router agent idle RSS: the bundle started the way the procd init script starts it
 *     (agent/packaging/openwrt/wrtfleet-agent.init: its start_service runs with procd's and
 *     UCI's shell functions stubbed, and the bench runs the command line and environment it
 *     hands procd), inside a namespace against a controller on a veth, after it connected,
 *     probed and sat idle; with mutual TLS (the default configuration: a client certificate
 *     in the credentials directory, a controller that requires it) and with `insecure '1'`
 *     (plaintext) for contrast (budget 50 MB)
 *  3. proxy RSS per router: the bundle running `proxy` for 1 and for N routers, each a real
 *     SSH session to one sshd in a namespace (MaxSessions/MaxStartups raised), every router
 *     connected to the controller with facts collected and capabilities probed over SSH
 *     (budget 1 MB per router)
 *  4. a full apply over SSH: DesiredState sent -> ApplyResult APPLIED received, four programs
 *     attached with TCX and verified, alternating two configurations so every apply changes
 *     something (budget 1.5 s)
 *  5. 1,000 agents reconnecting after a controller restart: arrival histogram of their Hellos
 *     against the jitter window (ControllerLink reconnect.jitterWindowMs), and without jitter
 *
 * Knobs: WF_BENCH_ROUTERS (200), WF_BENCH_AGENTS (1000), WF_BENCH_JITTER_MS (5000),
 * WF_BENCH_APPLIES (10), WF_BENCH_IDLE_S (10), WF_BENCH_AFTER_APPLY_S (30), WF_BENCH_ONLY,
 * WF_BENCH_NODE_FLAGS (replaces the node flags of the init script and of the systemd unit, for
 * experiments), WF_BENCH_VERBOSE (the on-router agent's stdout and stderr, e.g. with --trace-gc),
 * WF_BENCH_HEAPSNAP (a heap snapshot after each idle measurement; needs
 * --heapsnapshot-signal=SIGUSR2 in WF_BENCH_NODE_FLAGS).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleAgent } from '../../agent/packaging/build.js';
import { MB, work, results } from './settings.js';
import { benchOnRouterIdle } from './on-router.js';
import { benchApply, benchProxy } from './proxy.js';
import { benchReconnect } from './reconnect.js';

async function benchBundle(): Promise<string> {
  const b = await bundleAgent();
  results.bundle = {
    bytes: b.bytes,
    mib: +(b.bytes / MB).toFixed(2),
    budgetMiB: 3,
    objects: b.objects.length,
    lazySections: b.sections,
    helpersKiB: Object.fromEntries(Object.entries(b.helpers).map(([k, v]) => [k, Math.round(v / 1024)])),
  };
  console.log(
    `bundle: ${(b.bytes / MB).toFixed(2)} MiB (budget 3 MiB), ${b.objects.length} BPF objects, wf-tcx ${Object.entries(
      b.helpers,
    )
      .map(([k, v]) => `${k} ${(v / 1024).toFixed(0)} KiB`)
      .join(', ')}; lazy sections (JavaScript -> stored): ${Object.entries(b.sections)
      .map(([n, s]) => `${n} ${(s.bytes / 1024).toFixed(0)} -> ${(s.storedBytes / 1024).toFixed(0)} KiB`)
      .join(', ')}`,
  );
  return b.bundle;
}

const only = (process.env.WF_BENCH_ONLY ?? 'bundle,idle,proxy,apply,reconnect').split(',');
try {
  const bundle = only.some((x) => ['bundle', 'idle', 'proxy', 'apply'].includes(x)) ? await benchBundle() : '';
  if (only.includes('idle')) await benchOnRouterIdle(bundle);
  if (only.includes('apply')) await benchApply(bundle);
  if (only.includes('proxy')) await benchProxy(bundle);
  if (only.includes('reconnect')) await benchReconnect();
  // Merged into the previous results, so a partial run (WF_BENCH_ONLY) replaces only what it measured.
  const file = join(process.cwd(), 'bench/agent/results.json');
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    /* first run */
  }
  writeFileSync(
    file,
    `${JSON.stringify({ ...previous, at: new Date().toISOString(), kernel: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim(), node: process.version, ...results }, null, 2)}\n`,
  );
  console.log('results: bench/agent/results.json');
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
