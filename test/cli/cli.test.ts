import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { eventually, startTestController } from '../support/controller.js';
import { planPreviewText } from '../../core/plan/plan-text.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');

describe('the wrtfleet CLI against a live controller', () => {
  let db: TestDatabase;
  let controller: Controller;
  let fleet: SimulatedRouter[] = [];
  let env: NodeJS.ProcessEnv;
  let dir: string;

  /** Runs the CLI's bin (what `npx wrtfleet` runs, without npm's start-up); resolves with exit code and output. */
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

  beforeAll(async () => {
    db = await createPgliteDatabase();
    let token: string;
    // Plaintext agents on purpose: this file is about the CLI; test/security covers mTLS.
    ({ controller, token } = await startTestController(db, { security: { insecureAgents: true } }));
    env = { ...process.env, WRTFLEET_URL: controller.httpUrl, WRTFLEET_TOKEN: token };
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 2,
      reconnect: { jitterWindowMs: 200 },
    });
    await eventually(async () => controller.gateway.sessions.size === 6, 15_000, 'six agents');
    dir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-cli-'));
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('routers ls prints a table, --json prints the API document', async () => {
    const human = await cli('routers', 'ls');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+SOC/m);
    expect(human.stdout).toMatch(/QCA9558/);
    const json = await cli('--json', 'routers', 'ls', '--soc', 'MT7621');
    expect(JSON.parse(json.stdout).items).toHaveLength(2);
  });

  it('profiles apply -f a YAML file creates, then is a no-op, then revises', async () => {
    const file = path.join(dir, 'home.yaml');
    await writeFile(
      file,
      'name: home\nspec:\n  l3Rewrite:\n    ttl: { enabled: true, value: 65 }\n  flowOffload: { mode: auto }\n',
    );
    expect((await cli('profiles', 'apply', '-f', file)).stdout).toMatch(/revision 1 \(created\)/);
    expect((await cli('profiles', 'apply', '-f', file)).stdout).toMatch(/unchanged at revision 1/);
    await writeFile(file, 'name: home\nspec:\n  l3Rewrite:\n    ttl: { value: 128 }\n');
    expect((await cli('profiles', 'apply', '-f', file)).stdout).toMatch(/revision 2/);
    await writeFile(file, 'name: home\nspec:\n  l3Rewrite:\n    ttl: { value: 999 }\n');
    const bad = await cli('profiles', 'apply', '-f', file);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/\/spec\/l3Rewrite\/ttl\/value/);
  });

  it('plan preview, rollout create --watch to completion, audit ls/verify/export', async () => {
    const preview = await cli('plan', 'preview', '--profile', 'home', '--all');
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(/6 routers matched: \d+ would change, \d+ unchanged, 0 refused by the plan/);
    expect(preview.stdout).not.toContain('{');
    const rollout = await cli(
      'rollouts',
      'create',
      '--profile',
      'home',
      '--all',
      '--canary',
      '1',
      '--batch',
      '2',
      '--watch',
    );
    expect(rollout.code, rollout.stderr).toBe(0);
    expect(rollout.stdout).toMatch(/: completed/);
    expect(rollout.stderr).toMatch(/100% 6\/6/);
    const verify = await cli('audit', 'verify');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/audit chain intact/);
    const out = path.join(dir, 'audit.jsonl');
    expect((await cli('audit', 'export', '-o', out)).code).toBe(0);
    const events = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.some((e) => e.action === 'rollout.completed')).toBe(true);
  });

  it('commands check_drift --all --watch, a refused rollback, commands status, routers re-enroll', async () => {
    const check = await cli('commands', 'check_drift', '--all', '--watch');
    expect(check.stderr).not.toMatch(/is now spelled/);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/\(check_drift\): completed, succeeded 6 failed 0 offline 0/);
    expect(check.stderr).toMatch(/100% 6\/6/);
    const jobId = /^command (\S+): check_drift to 6 routers/m.exec(check.stdout)?.[1];
    expect(jobId).toBeDefined();
    const status = await cli('commands', 'status', jobId!);
    expect(status.stdout.match(/^\S+\s+succeeded\b/gm)).toHaveLength(6);
    expect((await cli('--json', 'commands', 'ls')).stdout).toContain(jobId);

    const routers = JSON.parse((await cli('--json', 'routers', 'ls')).stdout).items as { id: string }[];
    // The rollout above was each router's first apply: nothing earlier to go back to.
    // In 0.1's spellings (singular group, --id): still understood, with a warning for each.
    const rollback = await cli('command', 'rollback', '--id', routers[0]!.id);
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toMatch(/"command" is now spelled "commands"/);
    expect(rollback.stderr).toMatch(/"--id" is now spelled "--ids"/);
    expect(rollback.stderr).toMatch(/rollback refused: no earlier applied revision to roll back to/);
    // A selection reports the refusals per router and exits 3.
    const many = await cli('commands', 'rollback', '--all', '--watch');
    expect(many.code).toBe(3);
    expect(many.stdout.match(/refused\s+no earlier applied revision/g)).toHaveLength(6);

    const reenroll = await cli('routers', 're-enroll', routers[0]!.id, '--expires-in', '600');
    expect(reenroll.code, reenroll.stderr).toBe(0);
    const [token] = reenroll.stdout.split('\n');
    expect(token).toMatch(/^\S{20,}$/);
    const audit = await cli('--json', 'audit', 'ls', '--router', routers[0]!.id);
    expect(audit.stdout).toContain('router.reenroll_requested');
    expect(audit.stdout).not.toContain(token);
    expect((await cli('commands', 'frobnicate', '--all')).code).toBe(2);
    // The kebab-case verbs of 0.1 still run, with a warning.
    const old = await cli('commands', 're-probe', '--ids', routers[0]!.id);
    expect(old.code, old.stderr).toBe(0);
    expect(old.stderr).toMatch(/"commands re-probe" is now spelled "commands reprobe"/);
  });

  it('plan preview --router prints the text the console shows, every decision with its reason', async () => {
    const router = await controller.db.prisma.router.findFirstOrThrow({ where: { assignment: { isNot: null } } });
    const text = await cli('plan', 'preview', '--router', router.id);
    expect(text.code, text.stderr).toBe(0);
    const json = await cli('plan', 'preview', '--router', router.id, '--json');
    const preview = JSON.parse(json.stdout);
    expect(text.stdout.trimEnd()).toBe(planPreviewText(preview));
    expect(text.stdout).toContain(`${router.name}: home@`);
    for (const d of preview.plan.decisions) expect(text.stdout).toContain(`  - ${d.topic}: ${d.choice} (${d.reason})`);
  });

  it('fails with exit code 2 on bad usage and 1 on an API error', async () => {
    expect((await cli('rollouts', 'frobnicate')).code).toBe(2);
    expect((await cli('rollouts', 'create', '--profile', 'home')).code).toBe(2);
    const missing = await cli('routers', 'show', 'no-such-router');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no router/);
    // Through npx, as the README shows it.
    const unauth = await run('npx', ['wrtfleet', 'routers', 'ls'], {
      cwd: repo,
      env: { ...env, WRTFLEET_TOKEN: 'wft_wrong' },
    }).catch((e) => e);
    expect(unauth.code).toBe(1);
    expect(unauth.stderr).toMatch(/unknown, revoked or expired/);
  });
});
