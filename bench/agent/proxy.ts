/** The proxy placement: memory per router over SSH, and a full apply over SSH. */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplyResult_Status, type DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { FakeController } from '../../test/support/fake-controller.js';
import { SshRouter } from '../../test/support/ssh-router.js';
import { median, percentile } from '../statistics.js';
import { ROUTERS, APPLIES, MB, NODE_FLAGS, work, results } from './settings.js';
import { sleep, rssOf, until, stopProc } from './process.js';

async function proxyRss(bundle: string, router: SshRouter, n: number): Promise<{ rss: number; connectMs: number }> {
  const controller = new FakeController();
  await controller.start();
  const cfg = {
    stateDir: join(work, `proxy-state-${n}`),
    routers: Array.from({ length: n }, (_, i) => ({
      host: router.addr.router,
      identity: `bench-proxy-${i}`,
      keyPath: router.clientKeyPath,
      hostKeyFingerprint: router.hostKeyFingerprint,
      // sshd gets n connections: give each a distinct pin root so probes never collide.
      paths: { pinRoot: `/sys/fs/bpf/wrtfleet/r${i}` },
    })),
  };
  const cfgPath = join(work, `proxy-${n}.json`);
  writeFileSync(cfgPath, JSON.stringify(cfg));
  const t0 = Date.now();
  const p = spawn('node', [...NODE_FLAGS, bundle, 'proxy', '--config', cfgPath, '--controller', controller.address], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  p.stderr!.on('data', (d) => (err = (err + String(d)).slice(-2000)));
  try {
    await until(
      () => cfg.routers.every((r) => controller.connected(r.identity)),
      180_000,
      `${n} routers to connect (${err})`,
    );
    const connectMs = Date.now() - t0;
    await sleep(5_000);
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(rssOf(p.pid!));
      await sleep(1000);
    }
    return { rss: Math.max(...samples), connectMs };
  } finally {
    await stopProc(p);
    await controller.stop();
  }
}

export async function benchProxy(bundle: string): Promise<void> {
  const router = new SshRouter({ maxSessions: 64, maxStartups: Math.max(ROUTERS * 2, 100), extraConfig: [] });
  await router.start();
  try {
    const one = await proxyRss(bundle, router, 1);
    const many = await proxyRss(bundle, router, ROUTERS);
    const perRouter = (many.rss - one.rss) / (ROUTERS - 1);
    results.proxy = {
      routers: ROUTERS,
      rssOneMiB: +(one.rss / MB).toFixed(1),
      rssManyMiB: +(many.rss / MB).toFixed(1),
      perRouterKiB: Math.round(perRouter / 1024),
      totalPerRouterKiB: Math.round(many.rss / ROUTERS / 1024),
      allConnectedMs: many.connectMs,
      budgetPerRouterMiB: 1,
    };
    console.log(
      `proxy: 1 router ${(one.rss / MB).toFixed(1)} MiB, ${ROUTERS} routers ${(many.rss / MB).toFixed(1)} MiB -> ${(perRouter / 1024).toFixed(0)} KiB per additional router (${(many.rss / ROUTERS / 1024).toFixed(0)} KiB/router overall; budget 1024 KiB); all ${ROUTERS} connected, probed and said Hello in ${many.connectMs} ms`,
    );
  } finally {
    await router.stop();
  }
}

export async function benchApply(bundle: string): Promise<void> {
  const router = new SshRouter();
  await router.start();
  const controller = new FakeController();
  await controller.start();
  // The deployed form: the bundle running as a proxy process for this one router.
  const cfgPath = join(work, 'apply.json');
  writeFileSync(
    cfgPath,
    JSON.stringify({
      stateDir: join(work, 'apply-state'),
      routers: [
        {
          host: router.addr.router,
          identity: 'bench-apply',
          keyPath: router.clientKeyPath,
          hostKeyFingerprint: router.hostKeyFingerprint,
        },
      ],
    }),
  );
  const proc = spawn(
    'node',
    [...NODE_FLAGS, bundle, 'proxy', '--config', cfgPath, '--controller', controller.address],
    { stdio: ['ignore', 'ignore', 'ignore'] },
  );
  try {
    await until(() => controller.connected('bench-apply'), 30_000, 'agent connected');
    const times: number[] = [];
    const phases: Record<string, number[]> = {};
    for (let i = 1; i <= APPLIES; i++) {
      const d: DesiredState = {
        profile: 'bench',
        revision: i,
        spec: {
          l3Rewrite: { ttl: { value: 64 + (i % 2) }, tcpwin: { value: 60000 + (i % 2) } },
        } as DesiredState['spec'],
        confirmWindowSeconds: 0,
        rolloutId: '',
      };
      const before = controller.results('bench-apply').length;
      const t0 = performance.now();
      controller.send('bench-apply', { $case: 'desiredState', value: d });
      await until(() => controller.results('bench-apply').length > before, 30_000, `apply ${i}`);
      const ms = performance.now() - t0;
      const r = controller.results('bench-apply')[before]!;
      if (r.status !== ApplyResult_Status.STATUS_APPLIED) throw new Error(`apply ${i}: ${r.status} ${r.error}`);
      times.push(ms);
      if (i === 1) results.firstApplyPhasesMs = (r.evidence as { timingsMs: unknown }).timingsMs;
      for (const [k, v] of Object.entries((r.evidence as { timingsMs: Record<string, number> }).timingsMs))
        (phases[k] ??= []).push(v);
      await sleep(200); // let the ConfirmApply land before the next revision
    }
    const sorted = [...times].sort((a, b) => a - b);
    results.applyOverSsh = {
      applies: APPLIES,
      firstMs: Math.round(times[0]!),
      medianMs: Math.round(percentile(sorted, 50)),
      maxMs: Math.round(sorted.at(-1)!),
      phasesMedianMs: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, median(v)])),
      budgetMs: 1500,
    };
    console.log(`first apply phases: ${JSON.stringify(results.firstApplyPhasesMs)}`);
    console.log(
      `full apply over SSH (DesiredState -> APPLIED, 4 programs TCX + verify): first ${Math.round(times[0]!)} ms, median ${Math.round(percentile(sorted, 50))} ms, max ${Math.round(sorted.at(-1)!)} ms over ${APPLIES} (budget 1500 ms); phases (median) ${JSON.stringify((results.applyOverSsh as { phasesMedianMs: unknown }).phasesMedianMs)}`,
    );
  } finally {
    await stopProc(proc);
    await controller.stop();
    await router.stop();
  }
}
