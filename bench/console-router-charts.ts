/**
 * The router page's charts with 30 days of history, in Chromium: a controller serving the
 * console's production build, one router whose telemetry is stored as the telemetry store
 * keeps it (1-minute points for 24 h, 1-hour points for 30 days), and for each range
 * (30 d, 7 d, 24 h, 1 h) the time from navigating to the router's page to its three charts
 * drawn, and the bytes fetched on the way (all responses, and the telemetry one alone), over
 * several runs: median and p95.
 *
 * The page is entered by the console's own client-side navigation (a pasted API token lives in
 * memory, so a reload would sign out): the first run of all also loads the page's chunk and
 * uPlot, and is reported apart as "cold".
 *
 * Run: npm run -s bench:console:charts   (knobs: WF_BENCH_RUNS (20))
 */
import type { Page, Request } from 'playwright-core';
import { DEFAULT_CONSOLE_DIR } from '../server/console/console-build.js';
import { createPgliteDatabase } from '../test/support/databases.js';
import { startTestController } from '../test/support/controller.js';
import { launchChromium, openPage } from '../test/web-admin/support/browser.js';
import { ensureConsoleBuilt } from '../test/web-admin/support/console-controller.js';
import { signInWithToken } from '../test/web-admin/support/sign-in.js';
import { storeTelemetryHistory } from '../test/web-admin/support/telemetry-history-rows.js';
import { rangeOf, rangeQuery } from '../web-admin/src/pages/router/telemetry-charts.js';
import { median, nearestRankPercentile } from './statistics.js';

const RUNS = Number(process.env.WF_BENCH_RUNS ?? 20);
const RANGES = ['30d', '7d', '24h', '1h'] as const;

/**
 * Navigates inside the console to `path` and resolves with the milliseconds until every chart
 * figure of the page has its canvas and values, one frame later (painted).
 */
async function timeToChartsDrawn(page: Page, path: string): Promise<number> {
  // Text, not a function: tsx would name the function's closures with a helper the page lacks.
  return page.evaluate(`new Promise((resolve, reject) => {
    const start = performance.now();
    history.pushState(null, '', ${JSON.stringify(path)});
    dispatchEvent(new PopStateEvent('popstate'));
    const deadline = start + 30000;
    const drawn = () => {
      const figures = [...document.querySelectorAll('figure.wf-chart')];
      return figures.length === 3 &&
        figures.every((f) => Number(f.dataset.values) > 0 && f.querySelector('canvas') !== null);
    };
    const check = () => {
      if (drawn()) requestAnimationFrame(() => resolve(performance.now() - start));
      else if (performance.now() > deadline) reject(new Error('charts not drawn within 30 s'));
      else requestAnimationFrame(check);
    };
    check();
  })`);
}

/** Leaves the router page (to the fleet) so the next run mounts it afresh. */
async function leave(page: Page): Promise<void> {
  await page.evaluate(`history.pushState(null, '', '/fleet'); dispatchEvent(new PopStateEvent('popstate'))`);
  await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
}

interface Run {
  ms: number;
  bytes: number;
  telemetryBytes: number;
  requests: number;
}

async function measure(page: Page, path: string): Promise<Run> {
  const requests: Request[] = [];
  const onRequest = (r: Request) => requests.push(r);
  page.on('request', onRequest);
  const ms = await timeToChartsDrawn(page, path);
  page.off('request', onRequest);
  let bytes = 0;
  let telemetryBytes = 0;
  for (const r of requests) {
    // Bytes on the wire: headers and the (encoded) body of each response.
    const sizes = await r.sizes();
    const size = sizes.responseHeadersSize + sizes.responseBodySize;
    bytes += size;
    if (r.url().includes('/telemetry?')) telemetryBytes += size;
  }
  return { ms, bytes, telemetryBytes, requests: requests.length };
}

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: median(xs), p95: nearestRankPercentile(sorted, 95) };
};

await ensureConsoleBuilt();
const db = await createPgliteDatabase();
const { controller, token } = await startTestController(db, {
  console: { distDir: DEFAULT_CONSOLE_DIR, buildWhenMissing: false },
  logLevel: 'silent',
});
const browser = await launchChromium();
try {
  const router = await controller.db.prisma.router.create({
    data: {
      name: 'bench-mt7621',
      identity: 'bench:mt7621',
      soc: 'MT7621',
      model: 'KT KM14-102H',
      status: 'online',
      lastSeenAt: new Date(),
    },
  });
  const stored = await storeTelemetryHistory(controller.db.prisma, router.seriesKey, Date.now());
  console.log(`stored ${stored.minutes} minute points and ${stored.hours} hour points for one router`);

  const { page } = await openPage(browser);
  await signInWithToken(page, controller.httpUrl, token);
  const base = `/routers/${router.id}`;
  const cold = await measure(page, `${base}?range=30d`);
  await leave(page);
  const results: Record<string, Run[]> = Object.fromEntries(RANGES.map((r) => [r, []]));
  // Rounds visit the ranges in turn, so a drift in the machine's load touches all alike.
  for (let i = 0; i < RUNS; i++) {
    for (const range of RANGES) {
      results[range]!.push(await measure(page, range === '1h' ? base : `${base}?range=${range}`));
      await leave(page);
    }
  }
  // Points per range, asked as the page asks (the controller picks the step).
  const points: Record<string, number> = {};
  for (const range of RANGES) {
    const { from, to } = rangeQuery(rangeOf(range), Date.now());
    const res = await fetch(`${controller.httpUrl}/v1/routers/${router.id}/telemetry?from=${from}&to=${to}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { points: unknown[]; step: number };
    points[range] = body.points.length;
  }
  console.log(`\nrouter page, navigation to three charts drawn, ${RUNS} runs per range (Chromium, headless)`);
  console.log(
    `cold (first visit, page chunk and uPlot loaded): ${cold.ms.toFixed(0)} ms, ${(cold.bytes / 1024).toFixed(1)} KiB in ${cold.requests} responses`,
  );
  console.log('range  points  median ms  p95 ms  telemetry KiB  all KiB (median)  responses');
  for (const range of RANGES) {
    const runs = results[range]!;
    const t = stats(runs.map((r) => r.ms));
    console.log(
      [
        range.padEnd(5),
        String(points[range]).padStart(6),
        t.median.toFixed(0).padStart(10),
        t.p95.toFixed(0).padStart(7),
        (median(runs.map((r) => r.telemetryBytes)) / 1024).toFixed(1).padStart(14),
        (median(runs.map((r) => r.bytes)) / 1024).toFixed(1).padStart(17),
        String(median(runs.map((r) => r.requests))).padStart(10),
      ].join('  '),
    );
  }
} finally {
  await browser.close();
  await controller.close();
  await db.drop();
}
