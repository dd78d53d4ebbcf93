import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

/** One raw HTTP/1.1 exchange: what Fastify's router or Node's parser answers before any route runs. */
function rawRequest(port: number, head: string, deadlineMs = 2000) {
  return new Promise<{ status: number; headers: string; body: string }>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${deadlineMs} ms; got ${JSON.stringify(data.slice(0, 300))}`));
    }, deadlineMs);
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const [headers = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1] ?? 0), headers, body });
    });
    socket.write(head);
  });
}

describe('errors answered before routing have the one error shape', () => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;
  let logs: string[];
  let port: number;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, token, logs } = await startTestController(db, { http: { idleTimeoutSeconds: 1 } }));
    port = Number(new URL(controller.httpUrl).port);
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const get = (path: string, extra = '') =>
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n${extra}Connection: close\r\n\r\n`;

  it('a malformed percent-escape is a 400 with a request id', async () => {
    const res = await rawRequest(port, get('/v1/routers/%zz'));
    expect(res.status).toBe(400);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    const body = JSON.parse(res.body);
    expect(body).toEqual({ error: 'bad_request', message: expect.any(String), requestId: expect.any(String) });
    expect(res.body).not.toContain('FST_ERR');
  });

  it('a path segment of 10 KB is a 414 that does not echo it', async () => {
    const long = 'a'.repeat(10_000);
    const res = await rawRequest(port, get(`/v1/routers/${long}`));
    expect(res.status).toBe(414);
    const body = JSON.parse(res.body);
    expect(body).toEqual({ error: 'uri_too_long', message: expect.any(String), requestId: expect.any(String) });
    expect(res.body.length).toBeLessThan(300);
    // An unknown route of that length is a 404 that does not echo it either.
    const missing = await rawRequest(port, get(`/v1/${long}`));
    expect(missing.status).toBe(404);
    expect(missing.body.length).toBeLessThan(400);
    expect(JSON.parse(missing.body)).toMatchObject({ error: 'not_found', requestId: expect.any(String) });
  });

  it('headers past the size limit are a 431 with a request id', async () => {
    const res = await rawRequest(port, get('/v1/routers', `X-Filler: ${'b'.repeat(20_000)}\r\n`));
    expect(res.status).toBe(431);
    const body = JSON.parse(res.body);
    expect(body).toEqual({ error: 'headers_too_large', message: expect.any(String), requestId: expect.any(String) });
  });

  it('a request that is not HTTP is a 400 in the same shape', async () => {
    const res = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      error: 'bad_request',
      message: expect.any(String),
      requestId: expect.any(String),
    });
  });

  it('a connection that stops sending midway through its headers is closed by the idle limit', async () => {
    const started = Date.now();
    const res = await rawRequest(port, 'GET /v1/routers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 4000);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.status === 0 || res.status === 408).toBe(true);
  });

  it('a credential in the query string never reaches the log', async () => {
    const planted = 'wft_plantedquerysecret0123456789';
    const res = await fetch(
      `${controller.httpUrl}/v1/routers?token=${planted}&access_token=${planted}x&api_key=${planted}y&limit=5`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    await res.text();
    const incoming = logs.filter((l) => l.includes('incoming request') && l.includes('/v1/routers?'));
    expect(incoming.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain(planted);
    expect(incoming.at(-1)).toContain('limit=5');
    expect(incoming.at(-1)).toContain('token=[redacted]');
  });

  it('credentials under any credential-like name, or shaped like a token under any name, never reach the log', async () => {
    const secrets = {
      csrf: 'plantedcsrf0001',
      jwt: 'plantedjwt0002',
      pwd: 'plantedpwd0003',
      bearer: 'plantedbearer0004',
      xsrf_value: 'plantedxsrf0005',
      'p%61ssword': 'plantedencoded0006',
      note: 'wft_plantedapitoken0007',
      id: 'wfe_plantedenrollment0008',
      q: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.plantedsignature0009',
      s: `Bearer%20plantedheader0010`,
    };
    const query = Object.entries(secrets)
      .map(([name, value]) => `${name}=${value}`)
      .join('&');
    // A token pasted into the path is as much a leak as one in the query.
    for (const path of [`/v1/routers?${query}&limit=7`, `/v1/tokens/wft_plantedinpath0011?limit=8`]) {
      const res = await fetch(`${controller.httpUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      await res.text();
    }
    const log = logs.join('\n');
    for (const planted of [...Object.values(secrets), 'wft_plantedinpath0011'])
      expect(log, `${planted} in the log`).not.toContain(planted.replace('Bearer%20', ''));
    const incoming = logs.filter((l) => l.includes('incoming request'));
    expect(incoming.some((l) => l.includes('limit=7') && l.includes('csrf=[redacted]'))).toBe(true);
    expect(incoming.some((l) => l.includes('/v1/tokens/[redacted]?limit=8'))).toBe(true);
  });

  it('a 404 for an unknown route does not echo its path', async () => {
    const marker = 'unknown-route-marker';
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await fetch(`${controller.httpUrl}/v1/${marker}/wft_x?token=abc`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status, method).toBe(404);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({
        error: 'not_found',
        message: expect.any(String),
        requestId: expect.any(String),
      });
      expect(text, method).not.toContain(marker);
      expect(text).not.toContain('/v1/');
    }
  });
});
