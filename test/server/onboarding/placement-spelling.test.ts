/**
 * One spelling for the on-router placement, `on_router` (the Placement enum's): the API and
 * inventory files still accept the old `on-router` for one release and store it as `on_router`,
 * anything else is refused naming the field, and the migration rewrites stored jobs.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, defaultMigrationsDir } from '../../../prisma/tools/migrations.js';
import { startController, type Controller } from '../../../server/controller.js';
import { InventoryError, parseInventory } from '../../../core/onboarding/inventory.js';
import { authedFetch, operatorApi, testConfig } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { jobFinished, startOnboarding } from '../../support/onboarding-jobs.js';

describe('inventory files', () => {
  it('read the deprecated on-router as on_router, and name the placement when it is none', () => {
    const csv = ['host,passwordFile,placement', '10.0.0.1,/p,on-router', '10.0.0.2,/p,on_router', '10.0.0.3,/p,'];
    expect(parseInventory('inv.csv', csv.join('\n')).map((e) => e.placement)).toEqual([
      'on_router',
      'on_router',
      undefined,
    ]);
    const yaml =
      'defaults: { passwordFile: /p, placement: on-router }\nrouters: [{ host: a }, { host: b, placement: proxy }]';
    expect(parseInventory('inv.yaml', yaml).map((e) => e.placement)).toEqual(['on_router', 'proxy']);
    expect(() => parseInventory('inv.csv', 'host,passwordFile,placement\n10.0.0.1,/p,onrouter')).toThrow(
      new InventoryError('inv.csv:2: placement must be auto, on_router or proxy'),
    );
  });
});

describe('POST /v1/onboarding', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    controller = await startController(testConfig(db), pino({ level: 'silent' }), {
      onboarding: { sshConnectTimeoutMs: 1_000 },
    });
    api = await operatorApi(controller);
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('accepts the deprecated on-router and stores and reports it as on_router', async () => {
    // Nobody listens on port 1: the job fails at connect, after its input was stored.
    const body = { host: '127.0.0.1', port: 1, password: 'x', placement: 'on-router', identity: 'spelling:1' };
    const jobId = await startOnboarding(api, body);
    const job = await jobFinished(api, jobId, 30_000);
    expect(job.state).toBe('failed');
    expect(job.input.placement).toBe('on_router');
    const requested = await controller.db.prisma.auditEvent.findFirst({
      where: { targetId: jobId, action: 'onboarding.requested' },
    });
    expect((requested?.after as { placement?: string }).placement).toBe('on_router');
  });

  it('refuses a placement that is none with a 400 naming the field', async () => {
    const res = await api('/v1/onboarding', {
      method: 'POST',
      body: { host: '127.0.0.1', password: 'x', placement: 'onrouter' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details[0].path).toBe('/placement');
    expect(res.body.message).toMatch(/placement/);
  });

  it('says in the OpenAPI description that on-router is deprecated', async () => {
    const spec = (await api('/docs/json')).body;
    const schema = spec.paths['/v1/onboarding'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.placement.description).toMatch(/Deprecated: `on-router`/);
  });
});

describe('the placement_spelling migration', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let before: string;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    pool = new pg.Pool({ connectionString: db.databaseUrl });
    // The migrations up to, not including, this one: the database as the previous release left it.
    before = await mkdtemp(join(tmpdir(), 'wf-migrations-'));
    await cp(defaultMigrationsDir, before, { recursive: true });
    const ours = (await readdir(before)).find((d) => d.endsWith('_placement_spelling'))!;
    await rm(join(before, ours), { recursive: true });
    await applyMigrations(pool, { migrationsDir: before });
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
    await rm(before, { recursive: true, force: true });
  });

  it('rewrites on-router to on_router in onboarding jobs, and touches nothing else', async () => {
    const row = (id: string, kind: string, input: object, result: object | null) =>
      pool.query(
        `INSERT INTO "Job" ("id", "kind", "input", "result", "createdBy", "updatedAt") VALUES ($1, $2, $3, $4, 'test', now())`,
        [id, kind, JSON.stringify(input), result && JSON.stringify(result)],
      );
    await row('old', 'onboarding', { host: 'h', placement: 'on-router' }, { placement: 'on-router', routerId: 'r' });
    await row('queued', 'onboarding', { host: 'h', placement: 'on-router' }, null);
    await row('proxy', 'onboarding', { host: 'h', placement: 'proxy' }, { placement: 'proxy' });
    await row('other', 'something-else', { placement: 'on-router' }, null);

    expect(await applyMigrations(pool)).toEqual([expect.stringMatching(/^\d{14}_placement_spelling$/)]);

    const { rows } = await pool.query<{ id: string; input: unknown; result: unknown }>(
      `SELECT "id", "input", "result" FROM "Job" ORDER BY "id"`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, { input: r.input, result: r.result }]))).toEqual({
      old: { input: { host: 'h', placement: 'on_router' }, result: { placement: 'on_router', routerId: 'r' } },
      queued: { input: { host: 'h', placement: 'on_router' }, result: null },
      proxy: { input: { host: 'h', placement: 'proxy' }, result: { placement: 'proxy' } },
      other: { input: { placement: 'on-router' }, result: null },
    });
  });
});
