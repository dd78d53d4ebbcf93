import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';
import { startInjectedController, type ApiResponse } from '../../support/controller.js';

/**
 * The fleet as code through the API, on both backends: plan, apply, a second apply that changes
 * nothing, a saved plan refused once the fleet moved, drift made through the API, prune only
 * when asked, a refused document naming its field, and nothing written by a refused apply.
 */
const profile = (name: string, ttl: number) => ({
  apiVersion: 'wrtfleet/v1',
  kind: 'Profile',
  metadata: { name },
  spec: { l3Rewrite: { ttl: { value: ttl } } },
});
const policy = {
  apiVersion: 'wrtfleet/v1',
  kind: 'RolloutPolicy',
  metadata: { name: 'careful' },
  spec: { canary: 1, batchSize: 5 },
};
const assignment = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'wrtfleet/v1',
  kind: 'Assignment',
  metadata: { name: 'ams-home' },
  spec: { selector: { tags: ['site:ams'] }, profile: 'home', rolloutPolicy: 'careful', ...extra },
});

describe.each(BACKENDS)('the fleet as code on %s', (_name, create) => {
  let db: TestDatabase;
  let controller: Controller;
  let api: <B = any>(path: string, init?: { method?: string; body?: unknown }) => Promise<ApiResponse<B>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const plan = (documents: unknown[], prune = false) => api('/v1/plan', { method: 'POST', body: { documents, prune } });
  const apply = (documents: unknown[], extra: Record<string, unknown> = {}) =>
    api('/v1/apply', { method: 'POST', body: { documents, ...extra } });

  beforeAll(async () => {
    db = await create();
    const started = await startInjectedController(db, { heartbeatIntervalSeconds: 3_600 });
    controller = started.controller;
    api = started.fetch;
    const prisma = controller.db.prisma;
    for (const [name, tags] of [
      ['ams-1', ['site:ams']],
      ['ams-2', ['site:ams']],
      ['ams-3', ['site:ams']],
      ['lyon-1', ['site:lyon']],
    ] as const)
      await prisma.router.create({
        data: {
          name,
          identity: `id-${name}`,
          status: 'offline',
          tags: [...tags],
          soc: 'MT7621',
          arch: 'mipsel_24kc',
          kernel: '5.15.150',
          endian: 'little',
        },
      });
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const files = [profile('home', 65), policy, assignment()];

  it('plans the creation of each resource and the routers the assignment reaches', async () => {
    const res = await plan(files);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byKey = Object.fromEntries(
      res.body.resources.map((r: { kind: string; name: string }) => [`${r.kind}/${r.name}`, r]),
    );
    expect(byKey['Profile/home']).toMatchObject({ action: 'create', version: { live: null, planned: 1 } });
    expect(byKey['RolloutPolicy/careful']).toMatchObject({ action: 'create' });
    const a = byKey['Assignment/ams-home'];
    expect(a.action).toBe('create');
    expect(a.reach.target).toBe('home@1');
    expect(a.reach.matched).toBe(3);
    expect(a.reach.routers.map((r: { name: string }) => r.name)).toEqual(['ams-1', 'ams-2', 'ams-3']);
    expect(a.reach.rollout).toEqual({ policy: 'careful', routers: 3 - a.reach.counts.refused });
    expect(res.body.changes).toBe(4);
  });

  it('applies all of it with the source in the audit, then a second apply changes nothing', async () => {
    const res = await apply(files, { source: 'git:abc123' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rollouts).toHaveLength(1);
    expect(res.body.rollouts[0]).toMatchObject({ kind: 'Assignment', name: 'ams-home', routers: 3 });
    const rollout = await api(`/v1/rollouts/${res.body.rollouts[0].id}`);
    expect(rollout.body).toMatchObject({ profile: 'home', revision: 1, strategy: { canary: 1, batchSize: 5 } });

    const events = await controller.db.prisma.auditEvent.findMany({ where: { action: 'intent.applied' } });
    expect(events).toHaveLength(1);
    expect(events[0]!.after).toMatchObject({ source: 'git:abc123' });
    const created = await controller.db.prisma.auditEvent.findFirst({
      where: { action: 'profile.created', targetId: 'home' },
    });
    expect(created!.after).toMatchObject({ managedBy: 'files', source: 'git:abc123' });

    const again = await plan(files);
    expect(again.body.changes, JSON.stringify(again.body)).toBe(0);
    expect(again.body.resources.every((r: { action: string }) => r.action === 'unchanged')).toBe(true);
    const second = await apply(files, { source: 'git:abc123' });
    expect(second.body.rollouts).toEqual([]);
    expect(await controller.db.prisma.rollout.count()).toBe(1);
    expect(await controller.db.prisma.profileRevision.count()).toBe(1);
  });

  it('marks file-managed profiles in the API', async () => {
    const res = await api('/v1/profiles/home');
    expect(res.body.managed).toMatchObject({ version: 1, source: 'git:abc123' });
  });

  it('refuses a saved plan once the profile moved, and shows the API change as drift', async () => {
    const changed = [profile('home', 64), policy, assignment()];
    const saved = await plan(changed);
    expect(saved.body.state['Profile/home']).toBe(1);
    const edit = await api('/v1/profiles/home', {
      method: 'PUT',
      body: { spec: { l3Rewrite: { ttl: { value: 70 } } }, baseRevision: 1 },
    });
    expect(edit.status).toBe(201);
    const stale = await apply(changed, { expectState: saved.body.state });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toBe('stale_plan');
    expect(stale.body.details[0].message).toBe('Profile/home is at version 2, the plan was made at 1');
    expect(await controller.db.prisma.profileRevision.count()).toBe(2);

    const next = await plan(files);
    const home = next.body.resources.find((r: { kind: string }) => r.kind === 'Profile');
    expect(home.action).toBe('update');
    expect(home.drift).toMatch(/^changed outside the files: revision 2 by token:/);
    expect(home.diff).toEqual([{ path: '/l3Rewrite/ttl/value', op: 'replace', before: 70, after: 65 }]);
    const a = next.body.resources.find((r: { kind: string }) => r.kind === 'Assignment');
    expect(a.reach.target).toBe('home@3');
  });

  it('refuses a bad document naming it and its field, and writes nothing when any document is refused', async () => {
    const bad = await plan([policy, { ...profile('home', 65), spec: { l3Rewrite: { ttl: { value: 300 } } } }]);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('/documents/1/spec/l3Rewrite/ttl/value');

    const before = await controller.db.prisma.profileRevision.count();
    const dangling = await apply([profile('home', 60), profile('office', 60), assignment({ profile: 'nowhere' })]);
    expect(dangling.status).toBe(400);
    expect(dangling.body.details).toEqual([
      {
        path: '/documents/2/spec/profile',
        in: 'body',
        message: 'no Profile named nowhere in the files or on the controller',
      },
    ]);
    expect(await controller.db.prisma.profileRevision.count()).toBe(before);
    expect(await controller.db.prisma.profile.count({ where: { name: 'office' } })).toBe(0);
  });

  it('keeps what the files no longer name unless prune is asked', async () => {
    const withOffice = [...files, profile('office', 60)];
    expect((await apply(withOffice)).status).toBe(200);
    const kept = await plan(files);
    expect(kept.body.resources.find((r: { name: string }) => r.name === 'office').action).toBe('orphan');
    expect(kept.body.changes).toBe(0);
    await apply(files);
    expect(await controller.db.prisma.profile.count({ where: { name: 'office', archivedAt: null } })).toBe(1);
    const pruned = await plan(files, true);
    expect(pruned.body.resources.find((r: { name: string }) => r.name === 'office').action).toBe('delete');
    expect((await apply(files, { prune: true })).status).toBe(200);
    expect(await controller.db.prisma.profile.count({ where: { name: 'office', archivedAt: null } })).toBe(0);
    expect((await plan(files, true)).body.changes).toBe(0);
  });

  it('shows a rollout policy changed through the API as drift, and the files put it back', async () => {
    const listed = await api('/v1/assignments');
    expect(listed.body.items).toEqual([
      expect.objectContaining({ name: 'ams-home', version: 1, managed: expect.objectContaining({ version: 1 }) }),
    ]);
    const edit = await api('/v1/rollout-policies/careful', {
      method: 'PUT',
      body: { spec: { canary: 2, batchSize: 5 }, baseVersion: 1 },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(edit.body).toEqual({ changed: true, version: 2 });
    const refused = await api('/v1/rollout-policies/careful', { method: 'PUT', body: { spec: { canary: 3 } } });
    expect(refused.status).toBe(409);
    const bad = await api('/v1/rollout-policies/careful', {
      method: 'PUT',
      body: { spec: { batchSize: 0 }, baseVersion: 2 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('/spec/batchSize');

    const next = await plan(files);
    const careful = next.body.resources.find((r: { kind: string }) => r.kind === 'RolloutPolicy');
    expect(careful).toMatchObject({ action: 'update', version: { live: 2, planned: 3 } });
    expect(careful.drift).toBe('changed outside the files: version 2, after the files wrote version 1');
    expect(careful.diff).toEqual([{ path: '/canary', op: 'replace', before: 2, after: 1 }]);
    expect((await apply(files)).status).toBe(200);
    expect((await api('/v1/rollout-policies/careful')).body).toMatchObject({
      version: 3,
      spec: { canary: 1 },
      managed: { version: 3 },
    });
  });

  it("serves the documents' JSON Schema without a token", async () => {
    const res = await controller.http.inject({ method: 'GET', url: '/v1/intent/schema' });
    expect(res.statusCode).toBe(200);
    const schema = res.json() as { oneOf: { title: string }[] };
    expect(schema.oneOf.map((k) => k.title)).toEqual(['Profile', 'RolloutPolicy', 'Assignment', 'FirmwarePolicy']);
  });

  it('exports what applies back unchanged', async () => {
    const exported = await api('/v1/export');
    expect(
      exported.body.documents.map((d: { kind: string; metadata: { name: string } }) => `${d.kind}/${d.metadata.name}`),
    ).toEqual(['Profile/home', 'RolloutPolicy/careful', 'Assignment/ams-home']);
    const back = await plan(exported.body.documents, true);
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.changes).toBe(0);
  });
});
