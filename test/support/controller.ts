import { createHash } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { pino } from 'pino';
import type { ControllerConfig } from '../../server/config.js';
import { startController, type Controller } from '../../server/controller.js';
import { LOG_REDACTION } from '../../server/secrets/redaction.js';
import type { TestDatabase } from './databases.js';

export function testConfig(db: TestDatabase, overrides: Partial<ControllerConfig> = {}): ControllerConfig {
  return {
    databaseUrl: db.databaseUrl,
    dataDir: db.dataDir,
    httpHost: '127.0.0.1',
    httpPort: 0,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    heartbeatIntervalSeconds: 1,
    missedHeartbeatsBeforeOffline: 3,
    autoRegister: true,
    logLevel: 'silent',
    // Explicit opt-in to plaintext agents for tests that are not about transport security;
    // production defaults to mutual TLS, and test/security (and the demo) run with it:
    // pass `security: { insecureAgents: false }` or use enrollTestAgent from test/support/agents.ts.
    security: { insecureAgents: true },
    // A test controller serves whatever console build there is and never starts one
    // (test/web-admin/support builds it first when missing).
    console: { buildWhenMissing: false },
    // One installation per test database on the shared Redis: replicas of one database share
    // their bus and queues, while other tests (or another checkout's run at the same time)
    // never see them, nor tasks a killed run left in Redis.
    redisPrefix: `wf-test-${createHash('sha256')
      .update(db.databaseUrl ?? db.dataDir)
      .digest('hex')
      .slice(0, 12)}`,
    ...overrides,
  };
}

/** A controller on free loopback ports; logs are kept in memory for assertions. */
export function startTestController(db: TestDatabase, overrides: Partial<ControllerConfig> = {}) {
  return startWithAdminToken(db, overrides, true);
}

/**
 * A controller that opens no port, neither the REST API's nor the agents': its API answers
 * through Fastify's `inject`, with no socket in between. For tests of the API that need no
 * agent; `fetch` (and `operatorApi`) take the same calls as on a listening controller.
 */
export function startInjectedController(db: TestDatabase, overrides: Partial<ControllerConfig> = {}) {
  return startWithAdminToken(db, overrides, false);
}

async function startWithAdminToken(db: TestDatabase, overrides: Partial<ControllerConfig>, listen: boolean) {
  const lines: string[] = [];
  // The production redaction, so tests that scan logs for secrets test what operators get.
  const logger = pino({ level: 'debug', redact: LOG_REDACTION }, { write: (line: string) => void lines.push(line) });
  const controller: Controller = await startController(testConfig(db, overrides), logger, { listen });
  const { secret: token } = await controller.tokens.create({
    name: 'test',
    owner: 'tester',
    scopes: ['admin'],
    createdBy: 'test',
  });
  return { controller, logs: lines, token, fetch: apiClient(controller, token) };
}

/** A response from the controller's API: the parsed JSON body, or the text when it is not JSON. */
export interface ApiResponse<Body> {
  status: number;
  headers: Headers;
  body: Body;
}

/**
 * fetch against the controller's API with a bearer token; JSON bodies in and out. A caller
 * names the body's shape (`api<RolloutView>(path)`); without one the body is untyped, as most
 * tests read it: a default of `unknown` would have each of them name a shape first.
 */
export function authedFetch(baseUrl: string, token: string) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default for tests that name no body shape
  return async <Body = any>(
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<Body>> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: body as Body };
  };
}

/** Requests as `authedFetch` makes them, injected into the Fastify instance instead of sent over a socket. */
export function injectedFetch(app: FastifyInstance, token: string) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default for tests that name no body shape, as authedFetch's
  return async <Body = any>(
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<Body>> => {
    const res = await app.inject({
      method: (init.method ?? 'GET') as InjectOptions['method'],
      url: path,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      payload:
        init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers))
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
        headers.append(name, String(v));
    let body: unknown = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      /* not JSON */
    }
    return { status: res.statusCode, headers, body: body as Body };
  };
}

/** The REST client of a token: over HTTP to a listening controller, injected into one that is not. */
export function apiClient(controller: Controller, token: string): ReturnType<typeof authedFetch> {
  return controller.httpUrl ? authedFetch(controller.httpUrl, token) : injectedFetch(controller.http, token);
}

/** The REST client of an operator with a fresh API token of the given scopes (default: write). */
export async function operatorApi(controller: Controller, scopes: ('read' | 'write' | 'admin')[] = ['write']) {
  const { secret } = await controller.tokens.create({ name: 'operator', owner: 'alice', scopes, createdBy: 'test' });
  return apiClient(controller, secret);
}

/** Polls until `check` returns a truthy value or the deadline passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
