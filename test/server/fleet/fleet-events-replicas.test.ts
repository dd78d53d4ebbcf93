import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { authedFetch, startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

/**
 * Two controllers on one PostgreSQL database are two replicas: the fleet's change feed on one
 * reports a change made through the other (the feed reads the database, not the process).
 */
describe('the fleet change feed across two replicas (PostgreSQL)', () => {
  let db: TestDatabase;
  const replicas: { controller: Controller; token: string; fetch: ReturnType<typeof authedFetch> }[] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase();
    for (let i = 0; i < 2; i++) replicas.push(await startTestController(db));
  }, 60_000);

  afterAll(async () => {
    for (const r of replicas) await r.controller.close();
    await db?.drop();
  });

  it('streams on replica A the routers tagged in bulk through replica B', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    await a.controller.db.prisma.router.createMany({
      data: Array.from({ length: 5 }, (_, i) => ({
        name: `rep-${i}`,
        identity: `rep:${i}`,
        soc: i < 3 ? 'MT7621' : 'MT7986',
      })),
    });
    const abort = new AbortController();
    const res = await fetch(`${a.controller.httpUrl}/v1/routers/events`, {
      headers: { authorization: `Bearer ${a.token}` },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const until = async (done: () => boolean, ms = 10_000) => {
      const deadline = Date.now() + ms;
      while (!done()) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out; got ${JSON.stringify(text)}`);
        const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), left))]);
        if (chunk && !chunk.done) text += chunk.value;
      }
    };
    try {
      await until(() => text.includes('event: ready'));
      const tagged = await b.fetch('/v1/routers/bulk', {
        method: 'POST',
        body: { action: 'tag', filter: { soc: 'MT7621' }, tags: ['via:b'] },
      });
      expect(tagged.body).toEqual({ action: 'tag', matched: 3, changed: 3 });
      const expected = (await a.controller.db.prisma.router.findMany({ where: { soc: 'MT7621' } })).map((r) => r.id);
      const reported = () =>
        new Set(
          [...text.matchAll(/event: changed\ndata: (.*)\n/g)].flatMap(
            (m) => (JSON.parse(m[1]!) as { ids: string[] }).ids,
          ),
        );
      await until(() => expected.every((id) => reported().has(id)));
      expect(reported().size).toBe(3);
    } finally {
      abort.abort();
    }
  });
});
