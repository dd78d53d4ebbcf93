/**
 * `wrtfleet onboard --inventory` for real: the CLI process against a controller, two
 * namespace routers over SSH (one with the right password file, one with a wrong one),
 * bounded concurrency, and a summary naming why the failure failed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startController, type Controller } from '../../server/controller.js';
import { testConfig } from '../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { SshRouter } from '../support/ssh-router.js';
import { pino } from 'pino';

let db: TestDatabase;
let controller: Controller;
const routers = [new SshRouter(), new SshRouter()];
const dir = mkdtempSync(join(tmpdir(), 'wf-inv-'));

beforeAll(async () => {
  db = await createPostgresDatabase();
  controller = await startController(testConfig(db), pino({ level: 'silent' }), {
    onboarding: { helloTimeoutMs: 30_000, sshConnectTimeoutMs: 4_000 },
  });
  await Promise.all(routers.map((r) => r.start()));
}, 60_000);

afterAll(async () => {
  await controller?.close();
  for (const r of routers) await r.stop().catch(() => undefined);
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

it('onboards an inventory with bounded concurrency and prints a summary with failure reasons', async () => {
  writeFileSync(join(dir, 'good'), `${routers[0]!.password}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'bad'), 'wrong-password\n', { mode: 0o600 });
  writeFileSync(
    join(dir, 'inv.csv'),
    [
      'host,user,passwordFile,tags,placement,identity',
      `${routers[0]!.addr.router},root,${join(dir, 'good')},site:a;group:b,proxy,cli-inv:1`,
      `${routers[1]!.addr.router},root,${join(dir, 'bad')},,proxy,cli-inv:2`,
    ].join('\n'),
  );
  const { secret } = await controller.tokens.create({
    name: 'cli',
    owner: 'carol',
    scopes: ['write'],
    createdBy: 'test',
  });
  // Asynchronously: the controller runs in this process and must keep serving the CLI.
  const child = spawn('node', [
    'cli/bin.mjs',
    '--url',
    controller.httpUrl,
    '--token',
    secret,
    '--json',
    'onboard',
    '--inventory',
    join(dir, 'inv.csv'),
    '--concurrency',
    '2',
  ]);
  const r = { stdout: '', stderr: '', status: null as number | null };
  child.stdout.on('data', (d) => (r.stdout += String(d)));
  child.stderr.on('data', (d) => (r.stderr += String(d)));
  r.status = await new Promise<number | null>((res) => child.on('exit', res));
  expect(r.status, r.stderr).toBe(3);
  const summary = JSON.parse(r.stdout);
  expect(summary).toMatchObject({ total: 2, succeeded: 1, failed: 1 });
  const byHost = Object.fromEntries(summary.results.map((x: { host: string }) => [x.host, x]));
  expect(byHost[routers[0]!.addr.router].state).toBe('succeeded');
  expect(byHost[routers[1]!.addr.router].reason).toMatch(/authentication failed/);
  expect(r.stdout + r.stderr).not.toContain(routers[0]!.password);
  const row = await controller.db.prisma.router.findUnique({ where: { identity: 'cli-inv:1' } });
  expect(row?.tags).toEqual(expect.arrayContaining(['site:a', 'group:b']));
}, 120_000);
