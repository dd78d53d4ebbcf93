import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyResult_Status } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import type { RouterSummary } from '../../../server/fleet/router-directory.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';
import { authedFetch, operatorApi, startTestController } from '../../support/controller.js';

type Row = RouterSummary;
const SOCS = ['MT7621', 'QCA9558', 'MT7986', null] as const;
const MODELS = ['Archer C7', 'KM14', null] as const;
const RELEASES = ['23.05.5', '24.10.0', '23.05.3', null] as const;
const N = 40;

/**
 * The fleet table's API on both backends: every filter, every sort through its keyset cursor,
 * crafted cursors, counts, ids, bulk actions by ids and by filter with their audit, bad input,
 * and the change feed.
 */
describe.each(BACKENDS)('the fleet table API (%s)', (_name, createDatabase) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;
  let ids: string[];

  const names = (rows: Row[]) => rows.map((r) => r.name);
  const list = async (query: string) => {
    const res = await api(`/v1/routers?limit=500&${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items as Row[];
  };
  const expectBad = async (
    res: { status: number; body: { error: string; details: { path: string }[] } },
    path: string,
  ) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details[0]!.path).toBe(path);
  };

  beforeAll(async () => {
    db = await createDatabase();
    // The offline sweep would turn the seeded online routers offline midway: their agents are not real.
    ({ controller, fetch: api } = await startTestController(db, { missedHeartbeatsBeforeOffline: 100_000 }));
    const prisma = controller.db.prisma;
    const profile = await prisma.profile.create({ data: { name: 'base', latestRevision: 2 } });
    const a1 = await prisma.profileRevision.create({
      data: { profileId: profile.id, number: 1, spec: {}, createdBy: 't' },
    });
    const a2 = await prisma.profileRevision.create({
      data: { profileId: profile.id, number: 2, spec: {}, createdBy: 't' },
    });
    const base = Date.parse('2026-06-01T00:00:00Z');
    await prisma.router.createMany({
      data: Array.from({ length: N }, (_, i) => ({
        // Names that need LIKE escaping: 50%_off and a literal backslash.
        name:
          i === 0 ? 'lab-50%_off' : i === 1 ? 'lab\\edge' : `r${String(i).padStart(2, '0')}-${i % 2 ? 'ams' : 'lyon'}`,
        identity: `fleet-table:${i}`,
        status: (['online', 'offline', 'never_seen'] as const)[i % 3],
        soc: SOCS[i % 4],
        model: MODELS[i % 3],
        openwrtRelease: RELEASES[i % 4],
        placement: i % 5 === 0 ? 'proxy' : 'on_router',
        tags: i % 2 ? ['site:ams', ...(i % 3 === 0 ? ['group:canary'] : [])] : ['site:lyon'],
        lastApplyStatus: i % 7 === 0 ? 'failed' : i % 7 === 1 ? 'rolled_back' : i % 2 ? 'applied' : null,
        drifted: i % 6 === 0 ? true : i % 6 === 1 ? false : null,
        appliedRevisionId: i % 2 ? a1.id : null,
        desiredRevisionId: i % 4 === 1 ? a2.id : i % 4 === 3 ? a1.id : null,
        lastSeenAt: i % 3 === 2 ? null : new Date(Date.now() - (i % 9) * 60_000),
        createdAt: new Date(base + Math.floor(i / 4) * 1000),
      })),
    });
    ids = (await prisma.router.findMany({ select: { id: true } })).map((r) => r.id);
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('filters on every field, combined with AND', async () => {
    const all = await list('');
    expect(all).toHaveLength(N);
    const check = async (query: string, keep: (r: Row) => boolean) => {
      const expected = names(all.filter(keep)).sort();
      expect(expected.length, query).toBeGreaterThan(0);
      expect(names(await list(query)).sort(), query).toEqual(expected);
    };
    await check('status=offline', (r) => r.status === 'offline');
    await check('soc=mt7986', (r) => r.soc === 'MT7986');
    await check('model=archer%20c7', (r) => r.model === 'Archer C7');
    await check('release=23.05', (r) => !!r.openwrt?.release.startsWith('23.05.'));
    await check('release=24.10.0', (r) => r.openwrt?.release === '24.10.0');
    await check('placement=proxy', (r) => r.placement === 'proxy');
    await check(
      'revisionState=pending',
      (r) => !!r.desiredRevision && r.desiredRevision.revision !== r.appliedRevision?.revision,
    );
    await check(
      'revisionState=in_sync',
      (r) => !r.desiredRevision || r.desiredRevision.revision === r.appliedRevision?.revision,
    );
    await check('drift=drifted', (r) => r.drifted === true);
    await check('drift=clean', (r) => r.drifted === false);
    await check('drift=unreported', (r) => r.drifted === null);
    await check('applyResult=rolled_back', (r) => r.lastApplyStatus === 'rolled_back');
    await check('applyResult=none', (r) => r.lastApplyStatus === null);
    await check('tag=site:ams&tag=group:canary', (r) => r.tags.includes('site:ams') && r.tags.includes('group:canary'));
    await check('tag=site:ams,group:canary', (r) => r.tags.includes('site:ams') && r.tags.includes('group:canary'));
    await check('q=AMS', (r) => r.name.includes('ams'));
    await check(
      'status=online&soc=MT7621&tag=site:lyon',
      (r) => r.status === 'online' && r.soc === 'MT7621' && r.tags.includes('site:lyon'),
    );
    // LIKE's wildcards and its escape character match only themselves.
    expect(names(await list('q=50%25_'))).toEqual(['lab-50%_off']);
    expect(names(await list('q=%25'))).toEqual(['lab-50%_off']);
    expect(names(await list('q=_'))).toEqual(['lab-50%_off']);
    expect(names(await list(`q=${encodeURIComponent('\\')}`))).toEqual(['lab\\edge']);
  });

  it.each([
    'name',
    '-name',
    'status',
    '-status',
    'soc',
    '-soc',
    'model',
    '-model',
    'release',
    '-release',
    'lastSeen',
    '-lastSeen',
    'created',
    '-created',
  ])('sort=%s pages through every router once, in the order of one big page, NULLs last ascending', async (sort) => {
    const whole = await list(`sort=${sort}`);
    const paged: Row[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/v1/routers?limit=6&sort=${sort}${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await api<{ items: Row[]; nextCursor: string | null }>(query);
      expect(res.status).toBe(200);
      paged.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(names(paged)).toEqual(names(whole));
    expect(new Set(names(paged)).size).toBe(N);
    const key = sort.replace('-', '');
    const value = (r: Row) =>
      ({
        name: r.name,
        status: r.status,
        soc: r.soc,
        model: r.model,
        release: r.openwrt?.release ?? null,
        lastSeen: r.lastSeenAt,
        created: r.createdAt,
      })[key] ?? null;
    const values = whole.map(value);
    const firstNull = values.indexOf(null);
    if (firstNull >= 0) {
      // NULLs sit together: at the end ascending, at the start descending.
      const nulls = values.filter((v) => v === null).length;
      expect(firstNull).toBe(sort.startsWith('-') ? 0 : N - nulls);
    }
    if (key === 'lastSeen' || key === 'created' || key === 'release') {
      const set = values.filter((v) => v !== null) as string[];
      const sorted = [...set].sort();
      expect(set).toEqual(sort.startsWith('-') ? sorted.reverse() : sorted);
    }
  });

  it('refuses a crafted cursor, or one made for another sort, as a 400 naming cursor', async () => {
    const first = await api('/v1/routers?limit=3&sort=name');
    const cursor = first.body.nextCursor as string;
    const other = await api(`/v1/routers?limit=3&sort=soc&cursor=${cursor}`);
    await expectBad(other, '/cursor');
    expect(other.body.message).toContain('made for sort name');
    const craft = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const [sort, bad] of [
      ['name', craft(['name', 1, ids[0]])],
      ['name', craft(['name', 'x', "1' OR '1'='1"])],
      ['lastSeen', craft(['lastSeen', 'yesterday', ids[0]])],
      ['status', craft(['status', 'sleeping', ids[0]])],
      ['name', craft(['name', null, ids[0]])],
      ['name', craft({ sort: 'name' })],
      ['name', 'not-a-cursor'],
    ]) {
      await expectBad(await api(`/v1/routers?sort=${sort}&cursor=${bad}`), '/cursor');
    }
    // The old (createdAt, id) cursor of other listings is not one of this listing's.
    await expectBad(await api(`/v1/routers?cursor=${craft(['2026-01-01T00:00:00.000Z', ids[0]])}`), '/cursor');
  });

  it.each([
    ['/v1/routers?sort=colour', '/sort'],
    ['/v1/routers?drift=maybe', '/drift'],
    ['/v1/routers?tag=not%20a%20tag', '/tag'],
    ['/v1/routers?release=1;DROP', '/release'],
    ['/v1/routers/counts?applyResult=great', '/applyResult'],
    ['/v1/routers/ids?placement=moon', '/placement'],
    ['/v1/routers/counts?tag=a,b%20c', '/tag'],
  ])('%s is a 400 naming %s', async (path, field) => {
    await expectBad(await api(path), field);
  });

  it('counts over the same filter as the listing', async () => {
    const all = await list('');
    const counts = (await api('/v1/routers/counts')).body;
    const pending = (r: Row) => !!r.desiredRevision && r.desiredRevision.revision !== r.appliedRevision?.revision;
    expect(counts).toEqual({
      total: N,
      online: all.filter((r) => r.status === 'online').length,
      offline: all.filter((r) => r.status === 'offline').length,
      neverSeen: all.filter((r) => r.status === 'never_seen').length,
      drifted: all.filter((r) => r.drifted === true).length,
      failed: all.filter((r) => r.lastApplyStatus === 'failed' || r.lastApplyStatus === 'rolled_back').length,
      pending: all.filter(pending).length,
    });
    const ams = (await api('/v1/routers/counts?tag=site:ams&status=online')).body;
    expect(ams.total).toBe(all.filter((r) => r.tags.includes('site:ams') && r.status === 'online').length);
    expect(ams.online).toBe(ams.total);
    expect(ams.offline).toBe(0);
    const matching = (await api('/v1/routers/ids?soc=MT7621')).body;
    expect(matching.total).toBe(all.filter((r) => r.soc === 'MT7621').length);
    expect(matching.ids.sort()).toEqual(
      all
        .filter((r) => r.soc === 'MT7621')
        .map((r) => r.id)
        .sort(),
    );
  });

  it('tags by ids and untags by filter, each changed router audited with the actor', async () => {
    const prisma = controller.db.prisma;
    const two = (await list('soc=QCA9558')).slice(0, 2);
    const tagged = await api('/v1/routers/bulk', {
      method: 'POST',
      body: { action: 'tag', ids: two.map((r) => r.id), tags: ['batch:one'] },
    });
    expect(tagged.status, JSON.stringify(tagged.body)).toBe(200);
    expect(tagged.body).toEqual({ action: 'tag', matched: 2, changed: 2 });
    const again = await api('/v1/routers/bulk', {
      method: 'POST',
      body: { action: 'tag', ids: two.map((r) => r.id), tags: ['batch:one'] },
    });
    expect(again.body.changed).toBe(0);
    const events = await prisma.auditEvent.findMany({ where: { action: 'router.tags.set' }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.targetId).sort()).toEqual(two.map((r) => r.id).sort());
    expect(new Set(events.map((e) => e.actor))).toEqual(new Set([events[0]!.actor]));
    expect(events[0]!.actor).toMatch(/tester|token/);

    const byFilter = await api('/v1/routers/bulk', {
      method: 'POST',
      body: { action: 'untag', filter: { tag: ['batch:one'] }, tags: ['batch:one', 'site:ams'] },
    });
    expect(byFilter.body).toEqual({ action: 'untag', matched: 2, changed: 2 });
    expect(await prisma.router.count({ where: { tags: { has: 'batch:one' } } })).toBe(0);

    const everyAms = await api('/v1/routers/bulk', {
      method: 'POST',
      body: { action: 'tag', filter: { tag: ['site:ams'] }, tags: ['region:eu'] },
    });
    const amsCount = await prisma.router.count({ where: { tags: { has: 'site:ams' } } });
    expect(everyAms.body).toEqual({ action: 'tag', matched: amsCount, changed: amsCount });
  });

  it('assigns a profile to all that match, audited per router', async () => {
    const prisma = controller.db.prisma;
    const res = await api('/v1/routers/bulk', {
      method: 'POST',
      body: { action: 'assign', filter: { soc: 'MT7986' }, profile: 'base', pinnedRevision: 1 },
    });
    const expected = await prisma.router.count({ where: { soc: 'MT7986' } });
    expect(res.body).toEqual({ action: 'assign', matched: expected, changed: expected });
    const assignments = await prisma.assignment.findMany({ include: { router: true } });
    expect(assignments).toHaveLength(expected);
    expect(assignments.every((a) => a.router.soc === 'MT7986' && a.pinnedRevision === 1)).toBe(true);
    expect(await prisma.auditEvent.count({ where: { action: 'router.assignment.set' } })).toBe(expected);
  });

  it.each([
    [{ action: 'tag', tags: ['x'] }, '/ids'],
    [{ action: 'tag', tags: ['x'], ids: ['a'], filter: {} }, '/ids'],
    [{ action: 'tag', filter: {} }, '/tags'],
    [{ action: 'tag', filter: {}, tags: ['bad tag'] }, '/tags/0'],
    [{ action: 'tag', filter: { drift: 'maybe' }, tags: ['x'] }, '/filter/drift'],
    [{ action: 'tag', filter: { tag: ['a,b c'] }, tags: ['x'] }, '/filter/tag'],
    [{ action: 'assign', filter: {} }, '/profile'],
    [{ action: 'assign', filter: {}, profile: 'nope' }, '/profile'],
    [{ action: 'assign', filter: {}, profile: 'base', pinnedRevision: 9 }, '/pinnedRevision'],
    [{ action: 'untag', ids: ['00000000-0000-0000-0000-000000000000'], tags: ['x'] }, '/ids'],
    [{ action: 'explode', filter: {} }, '/action'],
    [{ action: 'tag', filter: {}, tags: ['x'], extra: 1 }, '/extra'],
  ])('bulk %j is a 400 naming %s, changing nothing', async (body, field) => {
    const before = await controller.db.prisma.auditEvent.count();
    await expectBad(await api('/v1/routers/bulk', { method: 'POST', body }), field);
    expect(await controller.db.prisma.auditEvent.count()).toBe(before);
  });

  it('refuses bulk actions without the write scope', async () => {
    const reader = await operatorApi(controller, ['read']);
    const res = await reader('/v1/routers/bulk', { method: 'POST', body: { action: 'tag', filter: {}, tags: ['x'] } });
    expect(res.status).toBe(403);
    expect((await reader('/v1/routers/counts')).status).toBe(200);
  });

  it("keeps each router's last drift finding and newest apply status, for the filters", async () => {
    const prisma = controller.db.prisma;
    const target = (await prisma.router.findFirstOrThrow({ where: { drifted: null, lastApplyStatus: null } })).id;
    await controller.registry.recordDrift(target, {
      profile: 'base',
      revision: 1,
      differences: [{ path: '/tc/wan', expected: 'wf_chain', actual: '' }],
    });
    expect(names(await list('drift=drifted'))).toContain(
      (await prisma.router.findUniqueOrThrow({ where: { id: target } })).name,
    );
    await controller.registry.recordDrift(target, { profile: 'base', revision: 1, differences: [] });
    expect((await prisma.router.findUniqueOrThrow({ where: { id: target } })).drifted).toBe(false);
    await controller.registry.recordApplyResult(target, {
      profile: 'base',
      revision: 2,
      status: ApplyResult_Status.STATUS_ROLLED_BACK,
      error: 'lost the WAN',
      evidence: undefined,
      startedAt: new Date(),
      finishedAt: new Date(),
      planHash: '',
      resultId: 'r-1',
    });
    const after = await prisma.router.findUniqueOrThrow({ where: { id: target } });
    expect(after.lastApplyStatus).toBe('rolled_back');
    expect(after.appliedRevisionId).toBeNull();
    expect(await prisma.auditEvent.count({ where: { targetId: target, action: 'drift.reported' } })).toBe(2);
  });

  it('streams which routers changed: status, apply result, drift, tags; not heartbeats', async () => {
    const prisma = controller.db.prisma;
    const abort = new AbortController();
    const res = await fetch(`${controller.httpUrl}/v1/routers/events`, {
      headers: {
        authorization: `Bearer ${(await controller.tokens.create({ name: 's', owner: 'o', scopes: ['read'], createdBy: 't' })).secret}`,
      },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const until = async (pattern: RegExp, ms = 8000) => {
      const deadline = Date.now() + ms;
      while (!pattern.test(text)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${pattern} in ${JSON.stringify(text)}`);
        const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), left))]);
        if (chunk && !chunk.done) text += chunk.value;
      }
    };
    try {
      await until(/event: ready/);
      const [a, b, c] = ids as [string, string, string];
      // A heartbeat moves lastSeenAt only: no event for it.
      await prisma.router.update({ where: { id: c }, data: { lastSeenAt: new Date() } });
      await prisma.router.update({ where: { id: a }, data: { status: 'offline' } });
      await prisma.router.update({ where: { id: a }, data: { status: 'online' } });
      await prisma.router.update({ where: { id: b }, data: { drifted: true } });
      await until(new RegExp(`"ids":\\[[^\\]]*"${b}"`));
      const events = [...text.matchAll(/event: changed\ndata: (.*)\n/g)].map(
        (m) => JSON.parse(m[1]!) as { ids: string[] },
      );
      const seen = events.flatMap((e) => e.ids);
      expect(seen).toContain(a);
      expect(seen).not.toContain(c);
      // Coalesced: two changes of `a` within a poll are one mention.
      expect(seen.filter((id) => id === a).length).toBeLessThanOrEqual(2);
    } finally {
      abort.abort();
    }
  });
});
