import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import type { RouterDirectory, RouterSummary } from '../../../server/fleet/router-directory.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';
import { authedFetch, startInjectedController } from '../../support/controller.js';

type RouterPage = { items: RouterSummary[]; nextCursor: string | null };
type RouterDetail = NonNullable<Awaited<ReturnType<RouterDirectory['get']>>>;

/**
 * GET /v1/routers reads its page with hand-written SQL through the driver (timestamps as
 * epoch milliseconds, the applied revision from a join; server/fleet/router-directory.ts
 * listJson) while GET /v1/routers/{id} reads a Prisma row. Each listed item must equal the
 * detail's summary part, field for field, for routers with every field set and with none.
 */
describe.each(BACKENDS)('GET /v1/routers items equal the single-router view (%s)', (_name, createDatabase) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createDatabase();
    ({ controller, fetch: api } = await startInjectedController(db));
    const prisma = controller.db.prisma;
    const profile = await prisma.profile.create({ data: { name: 'shape-check', latestRevision: 3 } });
    const revision = await prisma.profileRevision.create({
      data: { profileId: profile.id, number: 3, spec: {}, createdBy: 'test' },
    });
    await prisma.router.create({
      data: {
        name: 'full',
        identity: 'test:full',
        status: 'online',
        soc: 'MT7621',
        arch: 'mipsel_24kc',
        endian: 'little',
        kernel: '6.6.73',
        openwrtRelease: '24.10.0',
        openwrtTarget: 'ramips/mt7621',
        model: 'Xiaomi "AX" \\ 3000',
        agentVersion: '0.1.0',
        placement: 'proxy',
        tags: ['group:canary', 'site:ams'],
        capabilities: {
          predicted: {
            hardwareOffload: { value: true, reason: 'PPE' },
            softwareOffload: { value: true, reason: 'fw4' },
            ebpf: { value: true, reason: '6.6' },
            tcx: { value: true, reason: '6.6' },
          },
          probed: { ebpf: { value: true, reason: 'loaded' }, tcx: { value: false, reason: 'no bpf_link' } },
        },
        liveState: { datapath: { mode: 3, interfaces: ['wan'], programs: [] }, offload: { mode: 3, reason: '' } },
        lastSeenAt: new Date('2026-11-30T05:06:07.089Z'),
        connectedAt: new Date('2026-11-30T05:00:00.001Z'),
        decommissionedAt: new Date('2026-12-01T00:00:00.000Z'),
        createdAt: new Date('2026-01-02T03:04:05.678Z'),
        appliedRevisionId: revision.id,
      },
    });
    await prisma.router.create({
      data: {
        name: 'bare',
        identity: 'test:bare',
        openwrtRelease: '',
        createdAt: new Date('2026-01-02T03:04:05.679Z'),
      },
    });
    await prisma.router.create({
      data: { name: 'no-target', identity: 'test:no-target', openwrtRelease: '23.05.5', tags: [] },
    });
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('every field, nulls, nested objects, escaping and timestamps to the millisecond', async () => {
    // `full` is decommissioned: listed only when asked for.
    const list = await api<RouterPage>('/v1/routers?limit=10&sort=created&decommissioned=include');
    expect(list.status).toBe(200);
    expect(list.body.items.map((r) => r.name)).toEqual(['full', 'bare', 'no-target']);
    expect(list.body.nextCursor).toBeNull();
    for (const item of list.body.items) {
      const detail = await api<RouterDetail>(`/v1/routers/${item.id}`);
      expect(detail.status).toBe(200);
      const { facts: _f, capabilities: _c, liveState: _l, ...summary } = detail.body;
      expect(item).toStrictEqual(summary);
    }
    const full = list.body.items[0];
    expect(full).toMatchObject({
      model: 'Xiaomi "AX" \\ 3000',
      openwrt: { version: '24.10.0', target: 'ramips/mt7621' },
      appliedRevision: { profile: 'shape-check', revision: 3 },
      hardwareOffload: { predicted: true, probed: null },
      ebpf: { predicted: true, probed: true },
      tcx: { predicted: true, probed: false },
      datapath: 'cls_bpf',
      offload: 'hardware',
      lastSeenAt: '2026-11-30T05:06:07.089Z',
      createdAt: '2026-01-02T03:04:05.678Z',
    });
    expect(list.body.items[1]).toMatchObject({
      openwrt: null,
      appliedRevision: null,
      tags: [],
      lastSeenAt: null,
      ebpf: { predicted: null, probed: null },
      datapath: null,
      offload: null,
    });
  });

  it('the cursor of a page continues after its last item (millisecond ties broken by id)', async () => {
    const query = '/v1/routers?limit=1&sort=created&decommissioned=include';
    const first = await api<RouterPage>(query);
    expect(first.body.items.map((r) => r.name)).toEqual(['full']);
    const second = await api<RouterPage>(`${query}&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(second.body.items.map((r) => r.name)).toEqual(['bare']);
  });
});
