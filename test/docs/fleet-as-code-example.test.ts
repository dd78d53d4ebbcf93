import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import type { Controller } from '../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { startTestController } from '../support/controller.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');
const docs = path.join(repo, 'docs/fleet-as-code');
const example = path.join(docs, 'example');

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && /\.ya?ml$/.test(e.name) && !e.parentPath.includes('.github'))
      out.push(path.join(e.parentPath, e.name));
  return out.sort();
}

/**
 * docs/FLEET-AS-CODE.md's worked example: its documents valid against the committed JSON Schema
 * (what an editor checks), and its CI workflow's own plan and apply steps, run as written by
 * bash against a live controller: plan passes with changes, apply records the commit, and the
 * next plan on the same files has nothing to do.
 */
describe('the fleet-as-code worked example', () => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;
  let checkout: string;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, token } = await startTestController(db, { heartbeatIntervalSeconds: 3_600 }));
    for (const [name, tags] of [
      ['ams-101', ['site:ams', 'group:home']],
      ['ams-102', ['site:ams', 'group:home']],
      ['ams-201', ['site:ams', 'group:office']],
    ] as const)
      await controller.db.prisma.router.create({
        data: { name, identity: `id-${name}`, status: 'offline', tags: [...tags] },
      });
    checkout = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-example-'));
    await cp(example, checkout, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
    if (checkout) await rm(checkout, { recursive: true, force: true });
  });

  it('has documents the committed JSON Schema accepts, and the schema refuses a secret', async () => {
    const schema = JSON.parse(await readFile(path.join(docs, 'fleet.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    const files = await yamlFiles(path.join(example, 'fleet'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    let documents = 0;
    for (const file of files)
      for (const doc of parseAllDocuments(await readFile(file, 'utf8'))) {
        documents += 1;
        expect(validate(doc.toJS()), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    expect(documents).toBe(5);
    const profile = parse(await readFile(path.join(example, 'fleet/profiles/home.yaml'), 'utf8'));
    expect(validate({ ...profile, spec: { ...profile.spec, password: 'hunter2' } })).toBe(false);
    expect(validate({ ...profile, kind: 'Secret' })).toBe(false);
  });

  it("runs the CI workflow's plan and apply steps as written", async () => {
    const workflow = parse(await readFile(path.join(example, '.github/workflows/fleet.yml'), 'utf8'));
    const step = (job: string) =>
      (workflow.jobs[job].steps as { name?: string; run?: string }[]).find((s) => s.name?.startsWith('wrtfleet'))!.run!;
    const env = {
      ...process.env,
      WRTFLEET_URL: controller.httpUrl!,
      WRTFLEET_TOKEN: token,
      WRTFLEET_CLI: path.join(repo, 'cli/bin.mjs'),
      GITHUB_SHA: '5be7a1c',
    };
    const bash = (script: string) => run('bash', ['-e', '-c', script], { cwd: checkout, env, timeout: 120_000 });

    const planned = await bash(step('plan'));
    expect(planned.stdout).toContain('Plan: 5 to create, 0 to update, 0 to adopt, 0 to remove, 2 rollouts to start.');
    expect(JSON.parse(await readFile(path.join(checkout, 'plan.json'), 'utf8')).plan.changes).toBe(7);

    const applied = await bash(step('apply'));
    expect(applied.stdout).toMatch(/Rollout \S+ started for Assignment ams-home: 2 routers/);
    const event = await controller.db.prisma.auditEvent.findFirst({ where: { action: 'intent.applied' } });
    expect(event?.after).toMatchObject({ source: 'git:5be7a1c' });

    const again = await bash(step('plan'));
    expect(again.stdout).toContain('No changes: the fleet matches the files');
  });
});
