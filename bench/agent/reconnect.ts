/** 1,000 agents reconnecting after a controller restart: the arrival of their Hellos. */
import { ControllerLink } from '../../agent/controller-link.js';
import { FakeController } from '../../test/support/fake-controller.js';
import { percentile } from '../statistics.js';
import { AGENTS, JITTER_MS, results } from './settings.js';
import { until } from './process.js';

async function reconnectHistogram(jitterWindowMs: number): Promise<{
  spreadMs: number;
  p50: number;
  p90: number;
  maxPerBucket: number;
  peakPer100ms: number;
  firstMs: number;
  lastMs: number;
  buckets: number[];
  bucketMs: number;
}> {
  const controller = new FakeController();
  await controller.start();
  const links: ControllerLink[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const identity = `bench-rc-${i}`;
    const link = new ControllerLink({
      address: controller.address,
      reconnect: { jitterWindowMs, initialDelayMs: 500, maxDelayMs: 5_000 },
      hello: async () => ({
        router: { identity, name: identity },
        agent: { version: '0.1.0', placement: 2, proxyHost: '' },
        facts: undefined,
        capabilities: undefined,
        applied: undefined,
        live: undefined,
        bootId: '',
      }),
    });
    links.push(link);
    link.start();
  }
  try {
    await until(() => links.every((l) => l.sessions === 1), 120_000, 'all agents connected');
    // A restart: the old process goes away and a new one listens again on the same port at once.
    const port = controller.port;
    await controller.stop();
    const restartedAt = Date.now();
    controller.hellos.length = 0;
    await controller.start(port);
    await until(() => links.every((l) => l.sessions === 2), Math.max(60_000, jitterWindowMs * 4), 'all agents back');
    const arrivals = controller.hellos.map((h) => h.at - restartedAt).sort((a, b) => a - b);
    const bucketMs = Math.max(100, Math.round(jitterWindowMs / 10) || 100);
    const buckets: number[] = [];
    for (const a of arrivals) {
      const b = Math.max(0, Math.floor(a / bucketMs));
      buckets[b] = (buckets[b] ?? 0) + 1;
    }
    for (let i = 0; i < buckets.length; i++) buckets[i] ??= 0;
    const per100: number[] = [];
    for (const a of arrivals) per100[Math.floor(a / 100)] = (per100[Math.floor(a / 100)] ?? 0) + 1;
    return {
      spreadMs: arrivals.at(-1)! - arrivals[0]!,
      p50: percentile(arrivals, 50),
      p90: percentile(arrivals, 90),
      maxPerBucket: Math.max(...buckets),
      peakPer100ms: Math.max(...Array.from(per100, (x) => x ?? 0)),
      firstMs: arrivals[0]!,
      lastMs: arrivals.at(-1)!,
      buckets,
      bucketMs,
    };
  } finally {
    await Promise.all(links.map((l) => l.stop()));
    await controller.stop();
  }
}

export async function benchReconnect(): Promise<void> {
  const jit = await reconnectHistogram(JITTER_MS);
  const none = await reconnectHistogram(0);
  results.reconnect = { agents: AGENTS, jitterWindowMs: JITTER_MS, withJitter: jit, withoutJitter: none };
  const fmt = (h: typeof jit) =>
    `${h.buckets.map((b, i) => `${i * h.bucketMs}-${(i + 1) * h.bucketMs}ms:${b}`).join(' ')}`;
  console.log(
    `reconnect of ${AGENTS} agents after a controller restart, jitter window ${JITTER_MS} ms: first ${jit.firstMs} ms, last ${jit.lastMs} ms after the restart, p50 ${jit.p50} ms, p90 ${jit.p90} ms, peak ${jit.peakPer100ms} Hellos per 100 ms`,
  );
  console.log(`  histogram: ${fmt(jit)}`);
  console.log(
    `without jitter (window 0): first ${none.firstMs} ms, last ${none.lastMs} ms, peak ${none.peakPer100ms} Hellos per 100 ms (as fast as this one process can accept): ${fmt(none)}`,
  );
}
