/**
 * A controller holding a large fleet, measured as production runs it: the controller in its own
 * process (`server/launch.mjs server/main.ts`, as `npm run server`) on PostgreSQL + Redis, the
 * agents in separate `agent fleet` processes, enrolled and connected over mutual TLS. One run:
 *  1. enrollment: N enrollment tokens through the API, each agent enrolls once (credentials kept);
 *  2. cold start: a fresh controller, then every fleet process at once: time until all N streams
 *     are up (10/50/90/100 %), listen-queue overflows, streams the controller closed and why;
 *  3. kill -9 of the controller and an immediate restart: the same, from the kill;
 *  4. a rollout of one revision to all N: POST /v1/rollouts to `completed`;
 *  5. controller RSS with N streams (idle, after the rollout);
 * with `GET /v1/routers?limit=100` timed 10 times a second throughout (p50/p99 per phase).
 *
 * Run: npm run -s bench:fleet-scale
 * knobs: WF_BENCH_AGENTS (10000), WF_BENCH_PROCESSES (4), WF_BENCH_TLS (true; false: plaintext agents),
 *        WF_BENCH_CANARY (100), WF_BENCH_BATCH (2500: rollout batch size), WF_BENCH_SERVER_NODE_FLAGS,
 *        WF_BENCH_FLEET_NODE_FLAGS (Node flags of the fleet processes, e.g. --cpu-prof),
 *        WF_BENCH_SERVER_ENV ('K=V K=V': extra controller environment), WF_BENCH_KEEP_LOG (path: keep the controller log),
 *        WF_BENCH_COLD_ONLY (1: stop after the cold start, e.g. to profile it alone),
 *        WF_BENCH_SKIP_KILL (1: no kill -9 phase, the rollout follows the cold start),
 *        WF_BENCH_IDLE_SECONDS (10: how long idle CPU is measured with every stream up; longer to profile it),
 *        WF_BENCH_API_REPLICA (true: a second replica with WRTFLEET_SERVE_AGENTS=false and WRTFLEET_RUN_TASKS=false,
 *        the list timed through it as well),
 *        WF_BENCH_HEAPSNAP (seconds to wait after SIGUSR2 for a heap snapshot of the controller with N streams;
 *        give WF_BENCH_SERVER_NODE_FLAGS="--heapsnapshot-signal=SIGUSR2")
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../../test/support/databases.js';
import { freePort } from '../../test/support/ports.js';
import { Fleet, fleetCpuSeconds, storm, type FleetKnobs } from './agent-fleet.js';
import { api, ControllerProcess, sleep, until } from './controller-process.js';
import { ListProbe } from './list-probe.js';
import { cpuSeconds, postgresCpuSeconds, rssMiB, tcpExt, transactions } from './process-readings.js';

const AGENTS = Number(process.env.WF_BENCH_AGENTS ?? 10_000);
const PROCESSES = Number(process.env.WF_BENCH_PROCESSES ?? 4);
const TLS = (process.env.WF_BENCH_TLS ?? 'true') !== 'false';
const CANARY = Number(process.env.WF_BENCH_CANARY ?? 100);
const BATCH = Number(process.env.WF_BENCH_BATCH ?? 2_500);
const IDLE_SECONDS = Number(process.env.WF_BENCH_IDLE_SECONDS ?? 10);
const API_REPLICA = (process.env.WF_BENCH_API_REPLICA ?? 'true') !== 'false';
const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FLEET: FleetKnobs = {
  agents: AGENTS,
  processes: PROCESSES,
  tls: TLS,
  nodeFlags: (process.env.WF_BENCH_FLEET_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean),
};
const KNOBS = { redisUrl: REDIS_URL, tls: TLS };

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function main() {
  const db = await createPostgresDatabase();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wf-fleet-scale-'));
  const redisPrefix = `wf-bench-${randomUUID().slice(0, 8)}`;
  const ctl = new ControllerProcess(db, await freePort(), await freePort(), redisPrefix, KNOBS);
  const probe = new ListProbe(() => ctl.current);
  // WF_BENCH_API_REPLICA: a second replica serving the REST API only, the list timed through it too.
  const apiReplica = API_REPLICA
    ? new ControllerProcess(db, await freePort(), await freePort(), redisPrefix, KNOBS, {
        WRTFLEET_SERVE_AGENTS: 'false',
        WRTFLEET_RUN_TASKS: 'false',
        WRTFLEET_AGENT_ADDRESS: `127.0.0.1:${ctl.grpcPort}`,
      })
    : undefined;
  const apiProbe = apiReplica ? new ListProbe(() => apiReplica.current) : undefined;
  const setPhase = (phase: string) => {
    probe.setPhase(phase);
    apiProbe?.setPhase(phase);
  };
  const rows: string[] = [];
  const note = (line: string) => {
    rows.push(line);
    console.log(line);
  };
  let fleet: Fleet | undefined;
  try {
    let c = await ctl.start();
    const grpc = `127.0.0.1:${c.grpcPort}`;
    if (apiReplica) {
      const a = await apiReplica.start();
      console.log(`API-only replica (WRTFLEET_SERVE_AGENTS=false WRTFLEET_RUN_TASKS=false) pid ${a.process.pid}`);
    }
    let caFingerprint: string | undefined;
    fleet = new Fleet(FLEET, dir, undefined);
    const n = fleet.total;
    console.log(
      `${n} agents in ${PROCESSES} processes, ${TLS ? 'mutual TLS' : 'plaintext'}; controller pid ${c.process.pid}`,
    );

    if (TLS) {
      // One single-use enrollment token per agent, minted through the API as an operator would.
      const tokens: string[] = [];
      const t = Date.now();
      for (let i = 0; i < n; i += 20) {
        const minted = await Promise.all(
          Array.from({ length: Math.min(20, n - i) }, () =>
            api<{ token: string; caFingerprint: string }>(c, '/v1/enrollment-tokens', {
              method: 'POST',
              body: { expiresInSeconds: 86_400 },
            }),
          ),
        );
        for (const m of minted) tokens.push(m.token);
        caFingerprint ??= minted[0]!.caFingerprint.startsWith('SHA256:')
          ? minted[0]!.caFingerprint
          : `SHA256:${minted[0]!.caFingerprint}`;
      }
      const per = n / PROCESSES;
      for (let i = 0; i < PROCESSES; i++)
        await writeFile(path.join(dir, `tokens-${i}.txt`), tokens.slice(i * per, (i + 1) * per).join('\n'));
      note(`tokens minted: ${n} in ${fmt((Date.now() - t) / 1000)} s`);
      fleet = new Fleet(FLEET, dir, caFingerprint);
      const t1 = Date.now();
      setPhase('enrollment');
      fleet.start(grpc);
      const e = await storm(() => ctl.current, n, t1, 900_000);
      note(`enrollment + first connect: ${JSON.stringify(e.at)}${e.complete ? '' : ' (INCOMPLETE)'}`);
      setPhase('idle');
      await fleet.stop();
      await ctl.kill('SIGTERM');
      c = await ctl.start();
    }

    // Cold start: the controller is up with no streams; every fleet process starts at once.
    ctl.closes.clear();
    await sleep(2_000);
    const rssBefore = await rssMiB(c.process.pid!);
    let overflow0 = await tcpExt();
    setPhase('cold start');
    const t2 = Date.now();
    let cpu0 = await cpuSeconds(c.process.pid!);
    let tx0 = await transactions(db.databaseUrl!);
    fleet.start(grpc);
    const cold = await storm(() => ctl.current, n, t2, 600_000);
    const fleetCpu = await fleetCpuSeconds(fleet);
    let overflow1 = await tcpExt();
    setPhase('idle');
    note(
      `cold start: ${JSON.stringify(cold.at)}${cold.complete ? '' : ' (INCOMPLETE)'}; ListenOverflows +${overflow1.ListenOverflows! - overflow0.ListenOverflows!}, ListenDrops +${overflow1.ListenDrops! - overflow0.ListenDrops!}`,
    );
    note(`  streams closed by the controller: ${JSON.stringify(Object.fromEntries(ctl.closes))}`);
    note(`  controller CPU: ${fmt((await cpuSeconds(c.process.pid!)) - cpu0, 1)} s for ${n} connects`);
    note(`  agent fleet processes CPU (the other side, same machine): ${fmt(fleetCpu, 1)} s`);
    note(`  PostgreSQL transactions: ${(await transactions(db.databaseUrl!)) - tx0} for ${n} connects`);
    cpu0 = await cpuSeconds(c.process.pid!);
    const [idleFleet0, idlePostgres0] = [await fleetCpuSeconds(fleet), await postgresCpuSeconds()];
    await sleep(IDLE_SECONDS * 1000);
    c = ctl.current!;
    // Heartbeats and telemetry: what every other phase pays on top of its own work.
    const perCore = (seconds: number) => `${fmt((seconds / IDLE_SECONDS) * 100, 1)} % of a core`;
    note(
      `  CPU idle with ${n} streams: controller ${perCore((await cpuSeconds(c.process.pid!)) - cpu0)}, ` +
        `agent fleet ${perCore((await fleetCpuSeconds(fleet)) - idleFleet0)}, PostgreSQL ${perCore((await postgresCpuSeconds()) - idlePostgres0)}`,
    );
    const rssWith = await rssMiB(c.process.pid!);
    note(
      `controller RSS with ${n} streams (idle, ${IDLE_SECONDS} s after): ${fmt(rssWith, 0)} MiB; ${fmt(rssBefore, 0)} MiB before, so ${fmt(((rssWith - rssBefore) * 1024) / n, 1)} KiB per stream`,
    );
    if (process.env.WF_BENCH_HEAPSNAP) {
      // With --heapsnapshot-signal=SIGUSR2 in WF_BENCH_SERVER_NODE_FLAGS: a snapshot of the controller with N streams.
      c.process.kill('SIGUSR2');
      await sleep(Number(process.env.WF_BENCH_HEAPSNAP) * 1000);
    }
    const fleetRss = await Promise.all(fleet.pids().map((p) => rssMiB(p).catch(() => 0)));
    note(`agent fleet processes RSS: ${fleetRss.map((r) => fmt(r, 0)).join(', ')} MiB`);

    // WF_BENCH_COLD_ONLY: stop here (a --cpu-prof of the controller then covers the cold start alone).
    if (process.env.WF_BENCH_COLD_ONLY) return;

    // kill -9 and restart at once (WF_BENCH_SKIP_KILL: straight on to the rollout).
    if (!process.env.WF_BENCH_SKIP_KILL) {
      ctl.closes.clear();
      overflow0 = await tcpExt();
      const t3 = Date.now();
      await ctl.kill('SIGKILL');
      setPhase('after kill -9');
      c = await ctl.start();
      const up = (Date.now() - t3) / 1000;
      const again = await storm(() => ctl.current, n, t3, 600_000);
      overflow1 = await tcpExt();
      setPhase('idle');
      note(
        `kill -9 + restart (controller answering after ${fmt(up)} s): ${JSON.stringify(again.at)}${again.complete ? '' : ' (INCOMPLETE)'}; ListenOverflows +${overflow1.ListenOverflows! - overflow0.ListenOverflows!}`,
      );
      note(`  streams closed by the controller: ${JSON.stringify(Object.fromEntries(ctl.closes))}`);
    }
    await sleep(5_000);

    // A rollout of one revision to every router.
    ctl.closes.clear();
    await api(c, '/v1/profiles/scale', { method: 'PUT', body: { spec: { l3Rewrite: { ttl: { value: 65 } } } } });
    setPhase('rollout');
    const t4 = Date.now();
    cpu0 = await cpuSeconds(c.process.pid!);
    tx0 = await transactions(db.databaseUrl!);
    const [fleetCpu0, postgresCpu0] = [await fleetCpuSeconds(fleet), await postgresCpuSeconds()];
    const rollout = await api<{ id: string }>(c, '/v1/rollouts', {
      method: 'POST',
      body: { profile: 'scale', selector: { all: true }, strategy: { canary: CANARY, batchSize: BATCH } },
    });
    const done = await until(
      async () => {
        const r = await api<{ state: string; counts: Record<string, number> }>(c, `/v1/rollouts/${rollout.id}`);
        return ['completed', 'paused', 'failed', 'cancelled'].includes(r.state) ? r : undefined;
      },
      600_000,
      'rollout',
    );
    setPhase('idle');
    note(
      `rollout (canary ${CANARY}, batches of ${BATCH}): ${done.state} in ${fmt((Date.now() - t4) / 1000, 2)} s, ${JSON.stringify(done.counts)}`,
    );
    note(`  streams closed by the controller: ${JSON.stringify(Object.fromEntries(ctl.closes))}`);
    note(`  controller CPU: ${fmt((await cpuSeconds(c.process.pid!)) - cpu0, 1)} s for the rollout`);
    note(
      `  agent fleet processes CPU: ${fmt((await fleetCpuSeconds(fleet)) - fleetCpu0, 1)} s; PostgreSQL CPU: ${fmt((await postgresCpuSeconds()) - postgresCpu0, 1)} s`,
    );
    note(`  PostgreSQL transactions: ${(await transactions(db.databaseUrl!)) - tx0} for the rollout`);
    await sleep(10_000);
    note(`controller RSS with ${n} streams (after the rollout): ${fmt(await rssMiB(c.process.pid!), 0)} MiB`);

    for (const [where, p] of [
      ["the agents' replica", probe],
      ['the API-only replica', apiProbe],
    ] as const) {
      if (!p) continue;
      for (const phase of ['enrollment', 'cold start', 'after kill -9', 'rollout']) {
        const s = p.summary(phase);
        if (s.n)
          note(
            `GET /v1/routers?limit=100 through ${where} during ${phase}: n=${s.n} p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, max ${fmt(s.max)} ms`,
          );
      }
      if (p.errors) note(`GET /v1/routers errors through ${where} (timeouts, refused while restarting): ${p.errors}`);
    }
  } finally {
    await probe.stop();
    await apiProbe?.stop();
    await apiReplica?.kill('SIGTERM');
    await fleet?.stop();
    await ctl.kill('SIGTERM');
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
