import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { eventually, startTestController, type authedFetch } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { rawRequest } from '../support/raw-http.js';

/**
 * What a probe of the REST API found holding sockets: a HEAD of an event stream that never got a
 * status line, a GET with a 10 MB body that never got an answer, and any number of event streams
 * open for one caller. Every raw request here has a 2 s deadline, so a hang fails fast.
 */

const STREAM_CAP = 3;
const TEN_MB = 10 * 1024 * 1024;

describe('streamed routes and GET bodies answer at once; event streams are capped per caller', () => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;
  let api: ReturnType<typeof authedFetch>;
  let port: number;
  let streamed: string[];
  const open: AbortController[] = [];

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, token, fetch: api } = await startTestController(db, { http: { maxStreamsPerCaller: STREAM_CAP } }));
    port = Number(new URL(controller.httpUrl).port);
    const prisma = controller.db.prisma;
    const profile = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 65 } } } },
    });
    expect(profile.status).toBe(201);
    const revision = await prisma.profileRevision.findFirstOrThrow({ where: { profile: { name: 'home' } } });
    // Paused and without targets: no engine moves it while the test looks at its stream.
    const rollout = await prisma.rollout.create({
      data: { revisionId: revision.id, selector: {}, strategy: {}, state: 'paused', batchCount: 1, createdBy: 'test' },
    });
    const command = await prisma.command.create({
      data: {
        kind: 'reprobe',
        selector: {},
        timeoutSeconds: 60,
        maxInFlight: 1,
        deadline: new Date(Date.now() + 3_600_000),
        createdBy: 'test',
      },
    });
    const job = await prisma.job.create({ data: { kind: 'test', state: 'running', input: {}, createdBy: 'test' } });
    streamed = [
      '/v1/routers/events',
      '/v1/audit/export',
      `/v1/rollouts/${rollout.id}/events`,
      `/v1/commands/${command.id}/events`,
      `/v1/jobs/${job.id}/events`,
    ];
  });
  afterAll(async () => {
    for (const c of open) c.abort();
    await controller?.close();
    await db?.drop();
  });

  const head = (method: string, path: string, extra = '') =>
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n${extra}\r\n`;

  it('HEAD of every streamed route answers 200 with its headers at once, and no body', async () => {
    for (const path of streamed) {
      const res = await rawRequest(port, head('HEAD', path), { headOnly: true });
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type'], path).toMatch(path.includes('export') ? /x-ndjson/ : /text\/event-stream/);
    }
    // A GET of the same stream still streams.
    const get = await rawRequest(port, head('GET', '/v1/routers/events'));
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('text/event-stream');
  });

  it('a GET or HEAD of an event stream with a 10 MB body is a 413 before the body is read', async () => {
    const body = Buffer.alloc(TEN_MB, 'a');
    const declared = `Content-Type: application/json\r\nContent-Length: ${TEN_MB}\r\n`;
    const get = await rawRequest(port, head('GET', '/v1/routers/events', declared), { body });
    expect(get.status).toBe(413);
    expect(JSON.parse(get.body)).toEqual({
      error: 'payload_too_large',
      message: expect.any(String),
      requestId: expect.any(String),
    });
    expect(get.headers.connection).toBe('close');
    const headReq = await rawRequest(port, head('HEAD', '/v1/routers/events', declared), { body, headOnly: true });
    expect(headReq.status).toBe(413);
    // Without a token too: the size is refused before anything else is looked at.
    const anonymous = await rawRequest(port, `GET /v1/routers/events HTTP/1.1\r\nHost: 127.0.0.1\r\n${declared}\r\n`, {
      body: body.subarray(0, 65536),
    });
    expect(anonymous.status).toBe(413);
  });

  it('every GET route of the API document refuses a declared body over the limit with 413', async () => {
    const document = (await (await fetch(`${controller.httpUrl}/docs/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const paths = Object.entries(document.paths)
      .filter(([, operations]) => 'get' in operations)
      .map(([path]) => path.replace(/\{[^}]+\}/g, 'x'));
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) {
      const res = await rawRequest(port, head('GET', path, `Content-Length: ${TEN_MB}\r\n`), {
        body: Buffer.alloc(65536, 'a'),
      });
      expect(res.status, path).toBe(413);
    }
  });

  it("a route's own larger body limit still holds (the inventory upload takes 2 MB)", async () => {
    const json = 'Content-Type: application/json\r\n';
    const oneMb = Buffer.alloc(1024 * 1024, ' ');
    const within = await rawRequest(
      port,
      head('POST', '/v1/onboarding/inventory', `${json}Content-Length: ${oneMb.length}\r\n`),
      { body: oneMb, deadlineMs: 5000 },
    );
    expect(within.status).not.toBe(413);
    expect(within.status).toBe(400);
    const over = await rawRequest(
      port,
      head('POST', '/v1/onboarding/inventory', `${json}Content-Length: ${3 * 1024 * 1024}\r\n`),
      { body: oneMb },
    );
    expect(over.status).toBe(413);
  });

  it('a chunked GET body is read up to the limit: over it is a 413, under it the route answers', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const chunks = Buffer.concat(
      Array.from({ length: 8 }, () =>
        Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
      ),
    );
    const over = await rawRequest(port, head('GET', '/v1/routers/events', 'Transfer-Encoding: chunked\r\n'), {
      body: chunks,
    });
    expect(over.status).toBe(413);
    const small = await rawRequest(
      port,
      head('GET', '/v1/routers', 'Transfer-Encoding: chunked\r\nConnection: close\r\n'),
      {
        body: Buffer.from('2\r\n{}\r\n0\r\n\r\n'),
      },
    );
    expect(small.status).toBe(200);
  });

  it(`one caller holds at most ${STREAM_CAP} streams at once; past it 429, and a closed stream frees its slot`, async () => {
    const stream = async (path: string, bearer = token) => {
      const abort = new AbortController();
      open.push(abort);
      const res = await fetch(`${controller.httpUrl}${path}`, {
        headers: { authorization: `Bearer ${bearer}` },
        signal: abort.signal,
      });
      return { res, abort };
    };
    const held = [];
    for (let i = 0; i < STREAM_CAP; i++) {
      const s = await stream('/v1/routers/events');
      expect(s.res.status).toBe(200);
      held.push(s);
    }
    const refused = await stream(streamed[4]!);
    expect(refused.res.status).toBe(429);
    expect(await refused.res.json()).toMatchObject({
      error: 'too_many_streams',
      message: expect.stringContaining(String(STREAM_CAP)),
      requestId: expect.any(String),
    });
    // Another token of the same owner is the same caller.
    const { secret: sameOwner } = await controller.tokens.create({
      name: 'second',
      owner: 'tester',
      scopes: ['read'],
      createdBy: 'test',
    });
    expect((await stream('/v1/routers/events', sameOwner)).res.status).toBe(429);
    // Another caller is not affected, nor a HEAD, nor a request that is not a stream.
    const alice = await controller.tokens.create({
      name: 'alice',
      owner: 'alice',
      scopes: ['read'],
      createdBy: 'test',
    });
    const other = await stream('/v1/routers/events', alice.secret);
    expect(other.res.status).toBe(200);
    other.abort.abort();
    expect((await rawRequest(port, head('HEAD', '/v1/routers/events'), { headOnly: true })).status).toBe(200);
    expect((await api('/v1/routers')).status).toBe(200);
    // A stream the client closes gives its slot back.
    held[0]!.abort.abort();
    const again = await eventually(async () => {
      const s = await stream('/v1/routers/events');
      if (s.res.status === 200) return s;
      s.abort.abort();
      return undefined;
    }, 3000);
    expect(again.res.status).toBe(200);
    expect((await stream('/v1/routers/events')).res.status).toBe(429);
  });
});
