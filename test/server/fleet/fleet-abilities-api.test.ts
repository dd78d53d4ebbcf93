import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import type { RouterSummary } from '../../../server/fleet/router-directory.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';
import { authedFetch, startInjectedController } from '../../support/controller.js';

type Row = RouterSummary;
const CAPABILITIES = ['hardwareOffload', 'softwareOffload', 'ebpf', 'tcx'] as const;
type Flag = { value: boolean; reason: string };

/** A capability set with the given flags (the rest unsaid), as a Hello stores it. */
const set = (flags: Partial<Record<(typeof CAPABILITIES)[number], boolean>>) =>
  Object.fromEntries(Object.entries(flags).map(([k, v]) => [k, { value: v, reason: 'test' } satisfies Flag]));

/** Name, capabilities, live state (proto modes as numbers), decommissioned; created in this order. */
const ROUTERS: { name: string; capabilities?: object; liveState?: object; decommissioned?: boolean }[] = [
  {
    name: 'edge-10',
    capabilities: {
      predicted: set({ hardwareOffload: true, softwareOffload: true, ebpf: true, tcx: true }),
      probed: set({ ebpf: true, tcx: true }),
    },
    liveState: { datapath: { mode: 2, interfaces: ['wan'], programs: ['wf_chain'] }, offload: { mode: 3 } },
  },
  {
    name: 'edge-2',
    capabilities: { predicted: set({ hardwareOffload: false, softwareOffload: true, ebpf: true, tcx: false }) },
    liveState: { datapath: { mode: 3 }, offload: { mode: 2 } },
  },
  {
    name: 'Edge-3',
    capabilities: {
      predicted: set({ hardwareOffload: false, softwareOffload: true, ebpf: true, tcx: true }),
      probed: set({ ebpf: false, tcx: false }),
    },
    liveState: { datapath: { mode: 4 }, offload: { mode: 1 } },
  },
  {
    name: 'lab10b',
    capabilities: { predicted: set({ ebpf: false }), probed: null },
    liveState: { datapath: { mode: 5 } },
  },
  { name: 'edge-1' },
  { name: 'core-a', liveState: { datapath: { mode: 1 }, offload: { mode: 4 } } },
  { name: 'lab9', liveState: { datapath: { mode: 0 } } },
  {
    name: 'lab10a',
    capabilities: { predicted: set({ hardwareOffload: true }), probed: set({ hardwareOffload: true }) },
  },
  {
    name: 'edge-5',
    decommissioned: true,
    capabilities: { predicted: set({ ebpf: true }), probed: set({ ebpf: true }) },
    liveState: { datapath: { mode: 2 }, offload: { mode: 3 } },
  },
];
const LIVE = ROUTERS.filter((r) => !r.decommissioned).length;

/** What each capability filter value means, over a listed item (the listing and the filter must agree). */
const STATES: Record<string, (f: { predicted: boolean | null; probed: boolean | null }) => boolean> = {
  yes: (f) => (f.probed ?? f.predicted) === true,
  probed: (f) => f.probed === true,
  predicted: (f) => f.probed === null && f.predicted === true,
  no: (f) => (f.probed ?? f.predicted) === false,
  unknown: (f) => (f.probed ?? f.predicted) === null,
};

/**
 * GET /v1/routers and the fleet filter (counts, ids, bulk) on what routers can do and run, the
 * decommissioned routers left out by default, and the default order: by name, naturally.
 */
describe.each(BACKENDS)('the fleet by abilities, decommissioning and name (%s)', (_name, createDatabase) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: ReturnType<typeof authedFetch>;

  const list = async (query: string) => {
    const res = await api(`/v1/routers?limit=500&${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items as Row[];
  };
  const names = (rows: Row[]) => rows.map((r) => r.name);

  beforeAll(async () => {
    db = await createDatabase();
    ({ controller, fetch: api } = await startInjectedController(db, { missedHeartbeatsBeforeOffline: 100_000 }));
    const base = Date.parse('2026-06-01T00:00:00Z');
    for (const [i, r] of ROUTERS.entries()) {
      await controller.db.prisma.router.create({
        data: {
          name: r.name,
          identity: `abilities:${i}`,
          status: 'offline',
          ...(r.capabilities ? { capabilities: r.capabilities } : {}),
          ...(r.liveState ? { liveState: r.liveState } : {}),
          decommissionedAt: r.decommissioned ? new Date(base) : null,
          createdAt: new Date(base + i * 1000),
        },
      });
    }
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('lists by name in natural order unless told otherwise: r2 before r10, case aside', async () => {
    const expected = ['core-a', 'edge-1', 'edge-2', 'Edge-3', 'edge-10', 'lab9', 'lab10a', 'lab10b'];
    expect(names(await list(''))).toEqual(expected);
    expect(names(await list('sort=name'))).toEqual(expected);
    expect(names(await list('sort=-name'))).toEqual([...expected].reverse());
    // Page by page through the cursor, the same order.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { items: Row[]; nextCursor: string | null } } = await api(
        `/v1/routers?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      paged.push(...names(res.body.items));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(expected);
    // Oldest first is still there when asked for.
    expect(names(await list('sort=created'))).toEqual(ROUTERS.filter((r) => !r.decommissioned).map((r) => r.name));
    // A renamed router moves to its new place (the sort key follows the name).
    const lab9 = (await list('q=lab9'))[0]!;
    await controller.db.prisma.router.update({ where: { id: lab9.id }, data: { name: 'lab11' } });
    expect(names(await list('q=lab'))).toEqual(['lab10a', 'lab10b', 'lab11']);
    await controller.db.prisma.router.update({ where: { id: lab9.id }, data: { name: 'lab9' } });
  });

  it('lists each capability as predicted and probed, and the running datapath and offload', async () => {
    const byName = new Map((await list('')).map((r) => [r.name, r]));
    expect(byName.get('edge-10')).toMatchObject({
      hardwareOffload: { predicted: true, probed: null },
      ebpf: { predicted: true, probed: true },
      tcx: { predicted: true, probed: true },
      datapath: 'tcx',
      offload: 'hardware',
    });
    expect(byName.get('Edge-3')).toMatchObject({ ebpf: { predicted: true, probed: false }, datapath: 'nftables' });
    expect(byName.get('lab10b')).toMatchObject({ ebpf: { predicted: false, probed: null }, datapath: 'iptables' });
    expect(byName.get('edge-1')).toMatchObject({ ebpf: { predicted: null, probed: null }, datapath: null });
    expect(byName.get('core-a')).toMatchObject({ datapath: 'none', offload: 'unsupported' });
    expect(byName.get('lab9')).toMatchObject({ datapath: null, offload: null });
  });

  it('filters on every capability state, the datapath and the offload, combined with AND', async () => {
    const all = await list('');
    for (const capability of CAPABILITIES) {
      for (const [state, holds] of Object.entries(STATES)) {
        const expected = names(all.filter((r) => holds(r[capability])));
        expect(names(await list(`${capability}=${state}`)), `${capability}=${state}`).toEqual(expected);
      }
    }
    expect(names(await list('ebpf=yes'))).toEqual(['edge-2', 'edge-10']);
    expect(names(await list('ebpf=probed'))).toEqual(['edge-10']);
    expect(names(await list('ebpf=predicted'))).toEqual(['edge-2']);
    expect(names(await list('ebpf=no'))).toEqual(['Edge-3', 'lab10b']);
    expect(names(await list('hardwareOffload=probed'))).toEqual(['lab10a']);
    for (const mode of ['tcx', 'cls_bpf', 'nftables', 'iptables', 'none'] as const)
      expect(names(await list(`datapath=${mode}`)), mode).toEqual(names(all.filter((r) => r.datapath === mode)));
    expect(names(await list('datapath=unknown'))).toEqual(['edge-1', 'lab9', 'lab10a']);
    expect(names(await list('offload=software'))).toEqual(['edge-2']);
    expect(names(await list('offload=off'))).toEqual(['Edge-3']);
    expect(names(await list('offload=unknown'))).toEqual(['edge-1', 'lab9', 'lab10a', 'lab10b']);
    expect(names(await list('ebpf=yes&datapath=tcx&offload=hardware'))).toEqual(['edge-10']);
    // The same filter counts and selects.
    expect((await api('/v1/routers/counts?ebpf=yes')).body.total).toBe(2);
    expect((await api('/v1/routers/ids?datapath=unknown')).body.total).toBe(3);
  });

  it.each([
    ['/v1/routers?ebpf=maybe', '/ebpf'],
    ['/v1/routers/counts?datapath=xdp', '/datapath'],
    ['/v1/routers/ids?offload=fast', '/offload'],
    ['/v1/routers?decommissioned=yes', '/decommissioned'],
  ])('%s is a 400 naming %s', async (path, field) => {
    const res = await api(path);
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe(field);
  });

  it('leaves decommissioned routers out of the listing, counts, ids and bulk actions unless asked for', async () => {
    expect(names(await list(''))).not.toContain('edge-5');
    expect(names(await list('decommissioned=exclude'))).not.toContain('edge-5');
    expect(names(await list('decommissioned=only'))).toEqual(['edge-5']);
    expect(names(await list('decommissioned=include'))).toHaveLength(LIVE + 1);
    expect(names(await list('decommissioned=include&ebpf=probed'))).toEqual(['edge-5', 'edge-10']);
    expect((await list('decommissioned=only'))[0]!.decommissionedAt).toBe('2026-06-01T00:00:00.000Z');

    const counts = (await api('/v1/routers/counts')).body;
    expect(counts.total).toBe(LIVE);
    expect(counts.offline).toBe(LIVE);
    expect((await api('/v1/routers/counts?decommissioned=only')).body).toMatchObject({ total: 1, offline: 1 });
    expect((await api('/v1/routers/ids')).body.total).toBe(LIVE);
    expect((await api('/v1/routers/ids?decommissioned=include')).body.total).toBe(LIVE + 1);

    const tagged = await api('/v1/routers/bulk', {
      method: 'POST',
      body: { action: 'tag', filter: {}, tags: ['everyone'] },
    });
    expect(tagged.body).toEqual({ action: 'tag', matched: LIVE, changed: LIVE });
    const gone = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: 'abilities:8' } });
    expect(gone.tags).toEqual([]);
  });
});
