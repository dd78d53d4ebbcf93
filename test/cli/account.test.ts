import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

const repo = path.resolve(import.meta.dirname, '../..');

describe('wrtfleet accounts: the first admin from the CLI', () => {
  let db: TestDatabase;
  let controller: Controller;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller } = await startTestController(db));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  /** The CLI's bin with the first start's admin token file, `input` piped to its standard input. */
  const cli = (args: string[], input: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['cli/bin.mjs', ...args], {
        cwd: repo,
        env: { ...process.env, WRTFLEET_URL: controller.httpUrl, WRTFLEET_TOKEN_FILE: controller.adminTokenFile! },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input);
    });

  it('creates an admin with the password read from standard input, then it signs in; a short password is refused', async () => {
    const password = 'piped in, never argv';
    const created = await cli(['accounts', 'create', 'first-admin', '--role', 'admin'], `${password}\n`);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('created account first-admin (admin)');
    expect(created.stdout + created.stderr).not.toContain(password);

    const account = await controller.accounts.get('first-admin');
    expect(account).toMatchObject({ role: 'admin', disabled: false, createdBy: 'token:admin' });
    const res = await fetch(`${controller.httpUrl}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'first-admin', password }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: 'account', role: 'admin', actor: 'account:first-admin' });

    const short = await cli(['accounts', 'create', 'second', '--role', 'read'], 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password');
    const noRole = await cli(['accounts', 'create', 'third'], 'long enough password\n');
    expect(noRole.code).toBe(2);
    expect(noRole.stderr).toContain('--role');

    const listed = await cli(['accounts', 'ls', '--json'], '');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).items.map((a: { name: string }) => a.name)).toEqual(['first-admin']);
  });
});
