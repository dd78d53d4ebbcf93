/**
 * The console's Fleet page with 10,000 stored routers, in Debian's Chromium (playwright-core):
 *  1. sign-in to a filled table: from the click on "Sign in" to the first page of rows and the
 *     counts drawn, in a fresh browser context each run (nothing cached but the HTTP cache's
 *     immutable assets, which a returning operator has too);
 *  2. a filter change to a new table: from Enter in the SoC field to every row and the counts
 *     showing the new SoC;
 * each over WF_BENCH_RUNS runs (20): median and p95. Then EXPLAIN ANALYZE of the page's
 * queries on the same data (PostgreSQL), to see which index each one uses.
 *
 * With WF_BENCH_BASELINE=<commit>, that commit's console is built too (bench/console-baseline.ts)
 * and served by a second controller on the same database; every run times both builds, one
 * after the other in alternating order, so a noisy machine slows both alike and the two
 * results compare.
 *
 * Run: npm run -s bench:console   (knobs: WF_BENCH_ROUTERS (10000), WF_BENCH_RUNS (20),
 *                                  WF_BENCH_BACKEND (postgresql | pglite), WF_BENCH_BASELINE)
 */
import { cpus } from 'node:os';
import type { Page } from 'playwright-core';
import { DEFAULT_CONSOLE_DIR } from '../server/console/console-build.js';
import { startTestController } from '../test/support/controller.js';
import { createPgliteDatabase, createPostgresDatabase } from '../test/support/databases.js';
import { launchChromium, openPage } from '../test/web-admin/support/browser.js';
import { ensureConsoleBuilt } from '../test/web-admin/support/console-controller.js';
import { buildBaselineConsole } from './console-baseline.js';
import { median, nearestRankPercentile } from './statistics.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 10_000);
const RUNS = Number(process.env.WF_BENCH_RUNS ?? 20);
const BACKEND = process.env.WF_BENCH_BACKEND ?? 'postgresql';
const SOCS = ['MT7621', 'QCA9558', 'MT7986', 'IPQ8074', 'BCM2711'];
const MODELS = ['KM14-102H', 'Archer C7 v2', 'GL-MT6000', 'RT-AX89X', 'Raspberry Pi 4'];
const RELEASES = ['23.05.5', '24.10.0', '23.05.3', '22.03.7'];
const PAGE_ROWS = 50;
const BASELINE = process.env.WF_BENCH_BASELINE;

const ms = (x: number) => Math.round(x);
const summary = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: ms(median(sorted)), p95: ms(nearestRankPercentile(sorted, 95)), max: ms(sorted.at(-1)!) };
};

/** Waits in the page (polled every animation frame) until the table and counts show `total` routers of `soc`. */
async function tableShows(page: Page, total: number, soc: string | null) {
  await page.waitForFunction(
    ({ total, soc, rows }) => {
      const count = document.querySelector('[data-count="total"]')?.textContent;
      const cells = [...document.querySelectorAll('table tbody tr td:nth-child(4)')].map((td) => td.textContent);
      return (
        count === String(total) &&
        cells.length === Math.min(rows, total) &&
        (soc === null || cells.every((c) => c === soc))
      );
    },
    { total, soc, rows: PAGE_ROWS },
    { polling: 'raf', timeout: 30_000 },
  );
}

/** A console build under test: the controller serving it, the caller's token, its timings. */
interface Build {
  label: string;
  url: string;
  token: string;
  signIn: number[];
  filter: number[];
}

/** Each run's order of the builds: alternating, so neither always goes first. */
const inTurn = (builds: Build[], run: number) => (run % 2 === 0 ? builds : [...builds].reverse());

async function signedInFleet(browser: Awaited<ReturnType<typeof launchChromium>>, build: Build) {
  const opened = await openPage(browser);
  await opened.page.goto(`${build.url}/fleet`);
  await opened.page.getByRole('button', { name: 'Use an API token' }).click();
  await opened.page.getByLabel('API token').fill(build.token);
  return opened;
}

async function main() {
  await ensureConsoleBuilt();
  const baselineDist = BASELINE ? await buildBaselineConsole(BASELINE) : null;
  const db = BACKEND === 'pglite' ? await createPgliteDatabase() : await createPostgresDatabase();
  const started = await startTestController(db, {
    console: { distDir: DEFAULT_CONSOLE_DIR, buildWhenMissing: false },
    // The stored routers have no agents: the offline sweep must not rewrite them midway.
    missedHeartbeatsBeforeOffline: 1_000_000,
  });
  const { controller, token } = started;
  const baseline = baselineDist
    ? await startTestController(db, {
        console: { distDir: baselineDist, buildWhenMissing: false },
        missedHeartbeatsBeforeOffline: 1_000_000,
      })
    : null;
  const builds: Build[] = [
    { label: 'this checkout', url: controller.httpUrl, token, signIn: [], filter: [] },
    ...(baseline
      ? [
          {
            label: `baseline ${BASELINE}`,
            url: baseline.controller.httpUrl,
            token: baseline.token,
            signIn: [],
            filter: [],
          },
        ]
      : []),
  ];
  const browser = await launchChromium();
  try {
    const prisma = controller.db.prisma;
    const now = Date.now();
    for (let i = 0; i < ROUTERS; i += 1000) {
      await prisma.router.createMany({
        data: Array.from({ length: Math.min(1000, ROUTERS - i) }, (_, k) => {
          const n = i + k;
          return {
            name: `site-${String(n % 500).padStart(3, '0')}-router-${String(n).padStart(5, '0')}`,
            identity: `bench:${n}`,
            status: n % 10 === 0 ? ('offline' as const) : n % 97 === 0 ? ('never_seen' as const) : ('online' as const),
            soc: SOCS[n % SOCS.length]!,
            model: MODELS[n % MODELS.length]!,
            openwrtRelease: RELEASES[n % RELEASES.length]!,
            placement: n % 3 === 0 ? ('proxy' as const) : ('on_router' as const),
            tags: [`site:${n % 500}`, ...(n % 20 === 0 ? ['group:canary'] : [])],
            lastApplyStatus: n % 50 === 0 ? ('failed' as const) : ('applied' as const),
            drifted: n % 33 === 0,
            lastSeenAt: new Date(now - (n % 600) * 1000),
            createdAt: new Date(now - (ROUTERS - n) * 1000),
          };
        }),
      });
    }
    await controller.db.queryRows('ANALYZE "Router"', []);
    const perSoc = Object.fromEntries(
      SOCS.map((s, i) => [s, Math.floor(ROUTERS / SOCS.length) + (i < ROUTERS % SOCS.length ? 1 : 0)]),
    );

    // 1. Sign-in to a filled table, each run in a fresh context (its own session and cache).
    for (let run = 0; run <= RUNS; run++) {
      for (const build of inTurn(builds, run)) {
        const { context, page } = await signedInFleet(browser, build);
        const t0 = performance.now();
        await page.getByRole('button', { name: 'Sign in' }).click();
        await tableShows(page, ROUTERS, null);
        // The first run warms the controller (prepared statements, the console's files): not counted.
        if (run > 0) build.signIn.push(performance.now() - t0);
        await context.close();
      }
    }

    // 2. A filter change to a new table, in one signed-in page per build.
    const pages = new Map<Build, Awaited<ReturnType<typeof openPage>>>();
    for (const build of builds) {
      const opened = await signedInFleet(browser, build);
      await opened.page.getByRole('button', { name: 'Sign in' }).click();
      await tableShows(opened.page, ROUTERS, null);
      pages.set(build, opened);
    }
    for (let run = 0; run <= RUNS; run++) {
      const next = SOCS[run % SOCS.length]!;
      for (const build of inTurn(builds, run)) {
        const soc = pages.get(build)!.page.getByLabel('SoC');
        await soc.fill(next);
        const t0 = performance.now();
        await soc.press('Enter');
        await tableShows(pages.get(build)!.page, perSoc[next]!, next);
        if (run > 0) build.filter.push(performance.now() - t0);
      }
    }
    for (const { context } of pages.values()) await context.close();

    // 3. The page's queries, explained on the same data.
    const explained: Record<string, string> = {};
    if (controller.db.kind === 'postgresql') {
      const captured: { name: string; sql: string; params: unknown[] }[] = [];
      const original = controller.db.queryRows.bind(controller.db);
      (controller.db as { queryRows: typeof original }).queryRows = (sql, params, statement) => {
        captured.push({ name: statement ?? '', sql, params });
        return original(sql, params, statement);
      };
      const api = (path: string) =>
        fetch(`${controller.httpUrl}${path}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text());
      const cases: [string, string][] = [
        ['first page, oldest first', '/v1/routers?limit=50'],
        ['SoC filter, name order', '/v1/routers?limit=50&soc=MT7621&sort=name'],
        ['name search', '/v1/routers?limit=50&q=router-0999'],
        ['tag filter, last seen order', '/v1/routers?limit=50&tag=group:canary&sort=-lastSeen'],
        ['counts, SoC filter', '/v1/routers/counts?soc=MT7621'],
      ];
      for (const [label, path] of cases) {
        captured.length = 0;
        await api(path);
        const query = captured.find((c) => c.name.startsWith('wf-router'))!;
        const rows = await controller.db.queryRows<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${query.sql}`,
          query.params,
        );
        explained[label] = rows.map((r) => r['QUERY PLAN']).join('\n');
      }
      (controller.db as { queryRows: typeof original }).queryRows = original;
    }

    console.log(
      JSON.stringify(
        {
          routers: ROUTERS,
          runs: RUNS,
          backend: controller.db.kind,
          cpu: `${cpus()[0]?.model ?? 'unknown'} x${cpus().length}`,
          builds: builds.map((b) => ({
            build: b.label,
            signInToFilledTableMs: summary(b.signIn),
            filterChangeToNewTableMs: summary(b.filter),
          })),
        },
        null,
        2,
      ),
    );
    for (const [label, plan] of Object.entries(explained)) console.log(`\n-- ${label}\n${plan}`);
  } finally {
    await browser.close();
    await baseline?.controller.close();
    await controller.close();
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
