import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { BACKENDS, type TestDatabase } from '../support/databases.js';
import { startTestController } from '../support/controller.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');

const HOME = (ttl: number) => `apiVersion: wrtfleet/v1
kind: Profile
metadata:
  name: home
spec:
  l3Rewrite:
    ttl:
      value: ${ttl}
`;
const CAREFUL = `apiVersion: wrtfleet/v1
kind: RolloutPolicy
metadata: { name: careful }
spec: { canary: 1, batchSize: 2, maxFailureRatio: 0.1 }
`;
const AMS = `apiVersion: wrtfleet/v1
kind: Assignment
metadata: { name: ams-home }
spec:
  selector: { tags: ["site:ams"] }
  profile: home
  rolloutPolicy: careful
`;
const OFFICE = `# a second document in the same file
apiVersion: wrtfleet/v1
kind: Profile
metadata: { name: office }
spec: { l3Rewrite: { ttl: { value: 60 } } }
`;

/**
 * `wrtfleet plan`, `apply` and `export` against a live controller on both backends, as a CI job
 * runs them on a Git checkout: exit codes 0/2/1, a saved plan applied and one refused as stale,
 * a second apply that changes nothing, drift made through the API, prune only with --prune,
 * export that plans back to nothing, and bad files refused at their line with nothing written.
 */
describe.each(BACKENDS)('wrtfleet plan/apply/export on %s', (_name, create) => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const dir = () => path.join(work, 'fleet');

  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, ['cli/bin.mjs', ...args], {
        cwd: repo,
        env,
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const put = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(dir(), file)), { recursive: true });
    await writeFile(path.join(dir(), file), text);
  };
  const api = async (method: string, apiPath: string, body?: unknown) => {
    const res = await fetch(`${controller.httpUrl}${apiPath}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    db = await create();
    const started = await startTestController(db, { heartbeatIntervalSeconds: 3_600 });
    controller = started.controller;
    token = started.token;
    env = { ...process.env, WRTFLEET_URL: controller.httpUrl!, WRTFLEET_TOKEN: token };
    work = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-fleet-'));
    for (const name of ['ams-1', 'ams-2', 'ams-3'])
      await controller.db.prisma.router.create({
        data: { name, identity: `id-${name}`, status: 'offline', tags: ['site:ams'], soc: 'MT7621' },
      });
    await put('profiles/home.yaml', HOME(65));
    await put('rollout-policies/careful.yaml', CAREFUL);
    await put('assignments/ams.yml', AMS);
    await put('.github/workflows/fleet.yaml', 'on: [push]\n');
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('plans with exit code 2, saves the plan, applies it with the source, then plans 0', async () => {
    const planned = await cli('plan', '-f', dir(), '-o', path.join(work, 'plan.json'));
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stdout).toContain('+ Profile home: create (revision 1)');
    expect(planned.stdout).toContain('    + /l3Rewrite: (none) -> {"ttl":{"value":65,"enabled":true}');
    expect(planned.stdout).toContain('routers: 3 selected for home@1');
    expect(planned.stdout).toContain('rollout: 3 routers through policy careful');
    expect(planned.stdout).toContain('Plan: 3 to create, 0 to update, 0 to adopt, 0 to remove, 1 rollouts to start.');

    const asJson = await cli('--json', 'plan', '-f', dir());
    expect(asJson.code).toBe(2);
    expect(JSON.parse(asJson.stdout).changes).toBe(4);

    const applied = await cli('apply', '--plan', path.join(work, 'plan.json'), '--source', 'git:0f1e2d3');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/Rollout [0-9a-f-]{36} started for Assignment ams-home: 3 routers/);
    const audit = await controller.db.prisma.auditEvent.findFirst({ where: { action: 'intent.applied' } });
    expect(audit?.after).toMatchObject({ source: 'git:0f1e2d3' });

    const again = await cli('plan', '-f', dir());
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toBe('No changes: the fleet matches the files (3 resources).\n');
    const second = await cli('apply', '-f', dir());
    expect(second.stdout).toBe('No changes: the fleet matches the files.\n');
    expect(await controller.db.prisma.rollout.count()).toBe(1);
  });

  it('refuses a saved plan after the profile changed in the API, and shows the change as drift', async () => {
    await put('profiles/home.yaml', HOME(64));
    expect((await cli('plan', '-f', dir(), '-o', path.join(work, 'stale.json'))).code).toBe(2);
    const edit = await api('PUT', '/v1/profiles/home', {
      spec: { l3Rewrite: { ttl: { value: 70 } } },
      baseRevision: 1,
    });
    expect(edit.status).toBe(201);
    const stale = await cli('apply', '--plan', path.join(work, 'stale.json'));
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('the saved plan is stale, nothing was applied');
    expect(stale.stderr).toContain('Profile/home is at version 2, the plan was made at 1');
    const drift = await cli('plan', '-f', dir());
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('~ Profile home: new revision 3');
    expect(drift.stdout).toMatch(/drift: changed outside the files: revision 2 by token:/);
    expect(drift.stdout).toContain('~ /l3Rewrite/ttl/value: 70 -> 64');
    expect((await cli('apply', '-f', dir())).code).toBe(0);
  });

  it('refuses bad files at their line and changes nothing', async () => {
    await put(
      'profiles/office.yaml',
      `${OFFICE}---\n${AMS.replace('profile: home', 'profile: nowhere').replace('ams-home', 'ams-office')}`,
    );
    const before = await controller.db.prisma.profile.count();
    const dangling = await cli('apply', '-f', dir());
    expect(dangling.code).toBe(1);
    expect(dangling.stderr).toContain(
      'profiles/office.yaml:12:12: /spec/profile no Profile named nowhere in the files or on the controller',
    );
    expect(await controller.db.prisma.profile.count()).toBe(before);

    await put('profiles/office.yaml', OFFICE.replace('value: 60', 'value: 300'));
    const invalid = await cli('plan', '-f', dir());
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(
      /profiles\/office\.yaml:5:36: \/spec\/l3Rewrite\/ttl\/value Expected integer to be less or equal to 255/,
    );

    await put('profiles/office.yaml', 'apiVersion: wrtfleet/v1\nkind: [Profile\n');
    const syntax = await cli('plan', '-f', dir());
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toMatch(/profiles\/office\.yaml:\d+:\d+: /);
    await rm(path.join(dir(), 'profiles/office.yaml'));
  });

  it('keeps what the files dropped until --prune, and export plans back to nothing', async () => {
    await put('profiles/office.yaml', OFFICE);
    expect((await cli('apply', '-f', dir())).code).toBe(0);
    await rm(path.join(dir(), 'profiles/office.yaml'));
    const kept = await cli('plan', '-f', dir());
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('? Profile office: no longer in the files; kept (--prune removes it)');
    const pruning = await cli('plan', '-f', dir(), '--prune');
    expect(pruning.code).toBe(2);
    expect(pruning.stdout).toContain('- Profile office: remove (archived: its revisions stay)');
    expect((await cli('apply', '-f', dir(), '--prune')).code).toBe(0);
    expect(await controller.db.prisma.profile.count({ where: { name: 'office', archivedAt: null } })).toBe(0);

    const out = path.join(work, 'exported');
    const exported = await cli('export', '-o', out);
    expect(exported.code, exported.stderr).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['assignments', 'profiles', 'rollout-policies']);
    const back = await cli('plan', '-f', out, '--prune');
    expect(back.code, back.stdout).toBe(0);
  });
});
