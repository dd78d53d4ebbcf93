import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWrtfleetClient,
  pages,
  streamEvents,
  unwrap,
  waitForRollout,
  WrtfleetError,
  type Rollout,
  type ServerEvent,
  type WrtfleetClient,
} from '@wrtfleet/client';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { eventually, startTestController } from '../support/controller.js';
import { freePort } from '../support/ports.js';

/** Short, so that one test sees a stream end in `event: error` and waitForRollout reconnect. */
const STREAM_MAX_SECONDS = 4;

/** What a promise rejected with (fails the test when it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the call succeeded');
}

describe('@wrtfleet/client against a live controller', () => {
  let db: TestDatabase;
  let controller: Controller;
  let client: WrtfleetClient;
  let fleet: SimulatedRouter[] = [];

  beforeAll(async () => {
    db = await createPgliteDatabase();
    let token: string;
    // Plaintext agents on purpose: this file is about the REST client; test/security covers mTLS.
    ({ controller, token } = await startTestController(db, {
      security: { insecureAgents: true },
      http: { streamMaxSeconds: STREAM_MAX_SECONDS },
    }));
    client = createWrtfleetClient({ baseUrl: controller.httpUrl!, token });
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 2,
      reconnect: { jitterWindowMs: 200 },
    });
    await eventually(async () => controller.gateway.sessions.size === fleet.length, 15_000, 'every agent');
    await eventually(
      async () => (await unwrap(client.GET('/v1/routers/counts', {}))).online === fleet.length,
      15_000,
      'every router online',
    );
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('pages walks a keyset listing to its end, each router once', async () => {
    const seen: string[][] = [];
    for await (const page of pages((cursor) =>
      client.GET('/v1/routers', { params: { query: { limit: 2, sort: 'name', cursor } } }),
    ))
      seen.push(page.items.map((r) => r.name));
    expect(fleet.length).toBeGreaterThanOrEqual(5);
    // Pages of two: the last one may be short, or the listing may end on a full page whose cursor
    // leads to an empty one.
    expect(seen.length).toBeGreaterThanOrEqual(Math.ceil(fleet.length / 2));
    expect(seen.slice(0, -1).every((names) => names.length === 2)).toBe(true);
    const names = seen.flat();
    expect(new Set(names).size).toBe(names.length);
    const whole = await unwrap(client.GET('/v1/routers', { params: { query: { limit: 200, sort: 'name' } } }));
    expect(names).toEqual(whole.items.map((r) => r.name));
    expect(names).toHaveLength(fleet.length);
  });

  it('waitForRollout follows a rollout to completion', async () => {
    await unwrap(
      client.PUT('/v1/profiles/{name}', {
        params: { path: { name: 'client-home' } },
        body: { spec: { l3Rewrite: { ttl: { value: 65 } } } },
      }),
    );
    const created = await unwrap(
      client.POST('/v1/rollouts', {
        body: { profile: 'client-home', selector: { all: true }, strategy: { canary: 1, batchSize: 2 } },
      }),
    );
    const seen: string[] = [];
    const done = await waitForRollout(client, created.id, {
      signal: AbortSignal.timeout(60_000),
      onProgress: (r) => seen.push(r.state),
    });
    expect(done.id).toBe(created.id);
    expect(done.state).toBe('completed');
    expect(done.finished).toBe(fleet.length);
    expect(done.counts.applied).toBe(fleet.length);
    expect(seen.at(-1)).toBe('completed');
  });

  it('waitForRollout outlives the stream time limit and resolves when the rollout is cancelled', async () => {
    // A new revision, so the canary has something to apply, then a manual promotion holds the rest.
    await unwrap(
      client.PUT('/v1/profiles/{name}', {
        params: { path: { name: 'client-home' } },
        body: { spec: { l3Rewrite: { ttl: { value: 66 } } }, baseRevision: 1 },
      }),
    );
    const created = await unwrap(
      client.POST('/v1/rollouts', {
        body: {
          profile: 'client-home',
          selector: { all: true },
          strategy: { canary: 1, batchSize: 2, promote: 'manual' },
        },
      }),
    );
    let heldSince = 0;
    const progress: Rollout[] = [];
    const waiting = waitForRollout(client, created.id, {
      signal: AbortSignal.timeout(60_000),
      onProgress: (r) => {
        progress.push(r);
        if (!heldSince && (r.state === 'awaiting_approval' || r.state === 'paused')) heldSince = Date.now();
      },
    });
    let settled = false;
    void waiting.finally(() => (settled = true)).catch(() => undefined);
    // Held past the stream's time limit: the stream it started on has ended by now.
    await eventually(async () => heldSince && Date.now() - heldSince > (STREAM_MAX_SECONDS + 1) * 1000, 40_000, 'held');
    expect(settled).toBe(false);
    await unwrap(client.POST('/v1/rollouts/{id}/cancel', { params: { path: { id: created.id } } }));
    const done = await waiting;
    expect(done.state).toBe('cancelled');
    expect(progress.some((r) => r.state === 'awaiting_approval' || r.state === 'paused')).toBe(true);
  });

  it('streamEvents yields router changes, then ends in the error the controller sent', async () => {
    const [router] = (await unwrap(client.GET('/v1/routers', { params: { query: { limit: 1 } } }))).items;
    const events: ServerEvent[] = [];
    const stream = streamEvents(client, '/v1/routers/events', { signal: AbortSignal.timeout(30_000) });
    const failure = await rejection(
      (async () => {
        for await (const event of stream) {
          events.push(event);
          if (event.event === 'ready')
            await unwrap(
              client.POST('/v1/routers/bulk', { body: { action: 'tag', ids: [router!.id], tags: ['client-test'] } }),
            );
        }
      })(),
    );
    expect(events[0]).toMatchObject({ event: 'ready', data: {} });
    const changed = events.filter((e) => e.event === 'changed').map((e) => e.data as { ids: string[] });
    expect(changed.flatMap((c) => c.ids)).toContain(router!.id);
    // The stream reached its time limit: the controller's `event: error` frame, as the error class.
    expect(failure).toBeInstanceOf(WrtfleetError);
    expect(failure).toMatchObject({ status: 200, code: 'stream_time_limit' });
    expect((failure as WrtfleetError).requestId).toEqual(expect.any(String));
  });

  it('a 400 answer is a WrtfleetError with the controller code, message and details', async () => {
    const failure = await rejection(
      unwrap(
        client.PUT('/v1/profiles/{name}', {
          params: { path: { name: 'client-bad' } },
          body: { spec: { l3Rewrite: { ttl: { value: 999 } } } },
        }),
      ),
    );
    expect(failure).toBeInstanceOf(WrtfleetError);
    const error = failure as WrtfleetError;
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/ttl/);
    expect(error.details.map((d) => d.path)).toContain('/spec/l3Rewrite/ttl/value');
    expect(error.details.every((d) => d.message !== '')).toBe(true);
  });

  it('a refused connection is a WrtfleetError with status 0, typed calls, raw calls and streams alike', async () => {
    const port = await freePort();
    const nobody = createWrtfleetClient({ baseUrl: `http://127.0.0.1:${port}`, token: 'x' });
    const failures = [
      await rejection(unwrap(nobody.GET('/v1/routers', { params: { query: { limit: 1 } } }))),
      await rejection(nobody.raw('/v1/routers?limit=1')),
      await rejection(streamEvents(nobody, '/v1/routers/events').next()),
    ];
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(WrtfleetError);
      expect(failure).toMatchObject({ status: 0, code: 'unreachable' });
      expect((failure as Error).message).toMatch(
        new RegExp(`^cannot reach the controller at http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED`),
      );
    }
  });

  it('a stream whose connection breaks midway ends as a status-0 WrtfleetError', async () => {
    // Not the controller: a server that cuts the connection after one event, as a dying proxy would.
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ready\ndata: {}\n\n');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const cut = createWrtfleetClient({ baseUrl: `http://127.0.0.1:${port}` });
      const events: string[] = [];
      const failure = await rejection(
        (async () => {
          for await (const { event } of streamEvents(cut, '/v1/routers/events')) events.push(event);
        })(),
      );
      expect(events).toEqual(['ready']);
      expect(failure).toBeInstanceOf(WrtfleetError);
      expect(failure).toMatchObject({ status: 0, code: 'unreachable' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a refused token is a 401 WrtfleetError, not a retry loop', async () => {
    const stranger = createWrtfleetClient({ baseUrl: controller.httpUrl!, token: 'not-a-token' });
    const failure = await rejection(waitForRollout(stranger, 'any', { signal: AbortSignal.timeout(10_000) }));
    expect(failure).toBeInstanceOf(WrtfleetError);
    expect(failure).toMatchObject({ status: 401 });
  });
});
