import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../cli/api-client.js';
import type { Controller } from '../../../server/controller.js';
import { startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

/**
 * Every streamed response either fails before its first byte with a JSON error or ends with
 * an error marker and closes; none holds a socket open. Each request here carries a client-side
 * deadline, so a response that never comes fails the test instead of hanging it.
 */
describe('streamed responses answer or end (PostgreSQL)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    ({ controller, token } = await startTestController(db, { http: { streamMaxSeconds: 2 } }));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  /** GET with a bearer token and a deadline; the whole body is read within it. */
  async function get(path: string, deadlineMs: number) {
    const res = await fetch(`${controller.httpUrl}${path}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(deadlineMs),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  }

  it('a date that passes the format but is not a real instant is a 400 naming the field, within a second', async () => {
    for (const [path, field] of [
      ['/v1/audit/export?from=2016-12-31T23:59:60Z', 'from'],
      ['/v1/audit/export?to=0000-01-01T00:00:00Z', 'to'],
      ['/v1/audit/export?from=0001-01-01T00:30:00%2B01:00', 'from'],
      ['/v1/audit?from=2016-12-31T23:59:60Z', 'from'],
      ['/v1/audit?to=0000-01-01T00:00:00Z', 'to'],
    ] as const) {
      const res = await get(path, 1000);
      expect(res.status, path).toBe(400);
      expect(res.type).toContain('application/json');
      const body = JSON.parse(res.text);
      expect(body, path).toMatchObject({ error: 'invalid_request', requestId: expect.any(String) });
      expect(body.details[0], path).toMatchObject({ path: `/${field}`, in: 'querystring' });
      expect(body.message, path).toContain(field);
    }
    // A real instant still works, leap years included.
    expect((await get('/v1/audit/export?from=2024-02-29T23:59:59.999Z', 1000)).status).toBe(200);
  });

  it('an export that fails midway ends with an error line and closes', async () => {
    // 2100 events, the last one at an instant JavaScript cannot represent: the second page fails.
    await controller.db.prisma.$executeRawUnsafe(`
      INSERT INTO "AuditEvent" (id, at, actor, action, "targetType", "prevHash", hash)
      SELECT 'bulk-' || n, now(), 'test', 'test.bulk', 'test', 'prev-bulk-' || n, 'h'
      FROM generate_series(1, 2100) AS n`);
    await controller.db.prisma.$executeRawUnsafe(`
      INSERT INTO "AuditEvent" (id, at, actor, action, "targetType", "prevHash", hash)
      VALUES ('bad-instant', 'infinity', 'test', 'test.bad', 'test', 'prev-bad', 'h')`);
    const res = await get('/v1/audit/export?actor=test', 5000);
    expect(res.status).toBe(200);
    const lines = res.text.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2000);
    const last = JSON.parse(lines[lines.length - 1]!);
    expect(last).toMatchObject({ error: 'internal', requestId: expect.any(String) });
    expect(res.text).not.toContain('RangeError');
    // The CLI's client turns that last line into a failure instead of a file that looks complete.
    const cli = new ApiClient(controller.httpUrl, token);
    await expect(cli.lines('/v1/audit/export?actor=test')).rejects.toMatchObject({ code: 'internal' });
  });

  it('a job event stream whose database read fails midway ends with an error event and closes', async () => {
    const job = await controller.db.prisma.job.create({
      data: { kind: 'test', state: 'running', input: {}, createdBy: 'test', step: 'connect' },
    });
    const started = Date.now();
    const res = await fetch(`${controller.httpUrl}/v1/jobs/${job.id}/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5000),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: progress');
    await controller.db.prisma.$executeRawUnsafe(`ALTER TABLE "Job" RENAME TO "JobAway"`);
    let rest = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
    } finally {
      await controller.db.prisma.$executeRawUnsafe(`ALTER TABLE "JobAway" RENAME TO "Job"`);
    }
    expect(rest).toMatch(/event: error\ndata: \{"error":"internal"/);
    expect(rest).not.toContain('JobAway');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a job event stream past its time limit ends with an error event and closes', async () => {
    const job = await controller.db.prisma.job.create({
      data: { kind: 'test', state: 'running', input: {}, createdBy: 'test', step: 'connect' },
    });
    const started = Date.now();
    const res = await get(`/v1/jobs/${job.id}/events`, 5000);
    expect(res.text).toContain('event: progress');
    expect(res.text).toMatch(/event: error\ndata: \{"error":"stream_time_limit"/);
    expect(Date.now() - started).toBeLessThan(4000);
    // The CLI's client fails on the error event rather than reporting a stream that just stopped.
    const events = new ApiClient(controller.httpUrl, token).events(`/v1/jobs/${job.id}/events`);
    const seen: (string | undefined)[] = [];
    await expect(
      (async () => {
        for await (const { event } of events) seen.push(event);
      })(),
    ).rejects.toMatchObject({ code: 'stream_time_limit' });
    expect(seen).toContain('progress');
  });
});
