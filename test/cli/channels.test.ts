import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../server/alerts/channels/webhook-signature.js';
import type { Controller } from '../../server/controller.js';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const repo = path.resolve(import.meta.dirname, '../..');

describe('wrtfleet channels: add, ls, test, rm', () => {
  let db: TestDatabase;
  let controller: Controller;
  let receiver: Receiver;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller } = await startTestController(db));
    receiver = await startReceiver((request) => (request.path === '/broken' ? 502 : 200));
  });
  afterAll(async () => {
    await receiver?.close();
    await controller?.close();
    await db?.drop();
  });

  /** The CLI's bin with the first start's admin token file, `input` piped to its standard input. */
  const cli = (args: string[], input = '') =>
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

  it('adds a webhook and prints its secret once; test delivers a signed message; rm removes it', async () => {
    const added = await cli([
      'channels',
      'add',
      'ops',
      '--webhook',
      `${receiver.url}/ops`,
      '--min-severity',
      'warning',
    ]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const secret = /signing secret: (whsec_\S+)/.exec(added.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(added.stdout).toContain('This secret is not shown again');

    const listed = await cli(['channels', 'ls']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^NAME\s+KIND\s+TARGET\s+MINSEVERITY\s+RULES\s+CREATEDAT$/m);
    expect(listed.stdout).toMatch(new RegExp(`^ops\\s+webhook\\s+${receiver.url}/ops\\s+warning\\s+all\\s`, 'm'));
    expect(listed.stdout).not.toContain(secret!);

    const tested = await cli(['channels', 'test', 'ops']);
    expect(tested.code).toBe(0);
    expect(tested.stdout).toMatch(/^delivered \(200\) in \d+ ms$/m);
    const request = receiver.received.at(-1)!;
    expect(
      verifyWebhook(
        secret!,
        {
          timestamp: request.headers['wrtfleet-timestamp'] as string,
          signature: request.headers['wrtfleet-signature'] as string,
        },
        request.body,
      ),
    ).toEqual({ ok: true });

    const removed = await cli(['channels', 'rm', 'ops']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('removed channel ops');
    expect((await cli(['channels', 'ls', '--json'])).stdout).not.toContain('"ops"');
    const again = await cli(['channels', 'rm', 'ops']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no channel ops');
  });

  it('test exits 1 and prints the status and error when the receiver refuses', async () => {
    expect((await cli(['channels', 'add', 'broken', '--webhook', `${receiver.url}/broken`])).code).toBe(0);
    const tested = await cli(['channels', 'test', 'broken']);
    expect(tested.code).toBe(1);
    expect(tested.stdout).toMatch(/^not delivered \(502\) after \d+ ms: HTTP 502: answer 502$/m);
  });

  it('adds an e-mail channel with the SMTP password from standard input, never shown', async () => {
    const password = 'piped smtp password';
    const added = await cli(
      [
        'channels',
        'add',
        'mail',
        '--email',
        'ops@fleet.example,oncall@fleet.example',
        '--smtp',
        'smtp.fleet.example:2525',
        '--smtp-user',
        'alerts',
        '--smtp-password-stdin',
        '--from',
        'wrtfleet@fleet.example',
        '--tls',
        '--rule',
        'routers-offline',
        '--rule',
        'rollout-paused',
      ],
      `${password}\n`,
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(
      'created channel mail (email): ops@fleet.example,oncall@fleet.example via smtp.fleet.example:2525',
    );
    expect(added.stdout).not.toContain('secret');
    const shown = await cli(['channels', 'ls', '--json']);
    const mail = JSON.parse(shown.stdout).items.find((c: { name: string }) => c.name === 'mail');
    expect(mail).toMatchObject({
      rules: ['routers-offline', 'rollout-paused'],
      email: { host: 'smtp.fleet.example', port: 2525, tls: 'implicit', user: 'alerts', passwordSet: true },
    });
    expect(shown.stdout).not.toContain(password);

    const bad = await cli(['channels', 'add', 'bad', '--email', 'a@b.example', '--smtp', 'h', '--from', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('/email/from');
    const usage = await cli(['channels', 'add', 'none']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--webhook URL');
  });
});
