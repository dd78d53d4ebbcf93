/**
 * A controller with three operator accounts (root: admin, reader: read, writer: write) for the
 * operator session and account tests, and the two ways a browser talks to it: signing in, and
 * fetching with the session cookie and CSRF token.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { authedFetch, startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

export const ADMIN_PASSWORD = 'correct horse battery';
export const READER_PASSWORD = 'read only but long';

/** A console session as a browser holds it: the cookie, and the CSRF token GET /v1/session gave. */
export interface BrowserSession {
  cookie: string;
  csrfToken: string;
  setCookie: string;
}

export interface OperatorConsole {
  controller: Controller;
  /** fetch with the test's admin bearer token. */
  admin: ReturnType<typeof authedFetch>;
  logs: string[];
  url: string;
  signIn(name: string, password: string): Promise<BrowserSession>;
  withCookie(session: BrowserSession): (
    path: string,
    init?: { method?: string; body?: unknown; csrf?: string | null },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the bodies untyped, as authedFetch's do
  ) => Promise<{ status: number; headers: Headers; body: any }>;
}

/** Starts the controller and creates the accounts for the calling test file (beforeAll/afterAll). */
export function operatorConsole(): OperatorConsole {
  let db: TestDatabase;
  const c: OperatorConsole = {
    controller: undefined as unknown as Controller,
    admin: undefined as unknown as OperatorConsole['admin'],
    logs: [],
    url: '',
    async signIn(name: string, password: string): Promise<BrowserSession> {
      const res = await fetch(`${c.url}/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, password }),
      });
      expect(res.status, `${name} signs in`).toBe(200);
      const setCookie = res.headers.getSetCookie().find((h) => h.startsWith('wrtfleet_session='))!;
      const body = (await res.json()) as { csrfToken: string };
      return { cookie: setCookie.split(';')[0]!, csrfToken: body.csrfToken, setCookie };
    },

    /** fetch with the session cookie, as the console in a browser sends it. */
    withCookie(session: BrowserSession) {
      return async (path: string, init: { method?: string; body?: unknown; csrf?: string | null } = {}) => {
        const csrf = init.csrf === undefined ? session.csrfToken : init.csrf;
        const res = await fetch(`${c.url}${path}`, {
          method: init.method ?? 'GET',
          headers: {
            cookie: session.cookie,
            ...(csrf ? { 'x-csrf-token': csrf } : {}),
            ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
        const text = await res.text();
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the bodies untyped, as authedFetch's do
        return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as any };
      };
    },
  };

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller: c.controller, fetch: c.admin, logs: c.logs } = await startTestController(db));
    c.url = c.controller.httpUrl;
    for (const [name, role, password] of [
      ['root', 'admin', ADMIN_PASSWORD],
      ['reader', 'read', READER_PASSWORD],
      ['writer', 'write', 'write access please'],
    ] as const) {
      const res = await c.admin('/v1/accounts', { method: 'POST', body: { name, role, password } });
      expect(res.status, name).toBe(201);
      expect(res.body).toMatchObject({ name, role, disabled: false, createdBy: 'token:tester', lastSignInAt: null });
      expect(JSON.stringify(res.body)).not.toContain(password);
    }
  });

  afterAll(async () => {
    await c.controller?.close();
    await db?.drop();
  });

  return c;
}
