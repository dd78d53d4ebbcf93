import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../../server/controller.js';
import { eventually, startInjectedController } from '../../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../../support/databases.js';
import { queueNotification } from './queued-notification.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies as the tests read them
type Body = Record<string, any>;

interface Message {
  user: string | undefined;
  from: string | undefined;
  to: string[];
  data: string;
}

const USER = 'alerts@fleet.example';
const PASSWORD = 'smtp password, sealed at rest';

/**
 * E-mail notifications through a real SMTP server (smtp-server) on 127.0.0.1 that checks AUTH:
 * the message's subject, recipients and text; a permanent refusal (5xx) fails at once, a
 * transient one (4xx) is retried.
 */
describe('e-mail delivery through a real SMTP server (PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: Awaited<ReturnType<typeof startInjectedController>>['fetch'];
  let smtp: SMTPServer;
  let port: number;
  const messages: Message[] = [];
  /** How many times a recipient was refused temporarily, by address. */
  const deferred = new Map<string, number>();

  beforeAll(async () => {
    smtp = new SMTPServer({
      // A relay on this host: no TLS, so AUTH over plain text has to be allowed here.
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: false,
      onAuth(auth, _session, callback) {
        if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: auth.username });
        callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith('nobody@'))
          return callback(Object.assign(new Error('No such user'), { responseCode: 550 }));
        if (address.address.startsWith('busy@')) {
          const n = (deferred.get(address.address) ?? 0) + 1;
          deferred.set(address.address, n);
          if (n <= 2) return callback(Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 }));
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          messages.push({
            user: session.user,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
            data: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startInjectedController(db, {
      alerts: { retryBaseMs: 100, deliverEveryMs: 50, attemptTimeoutMs: 2_000, maxAttempts: 5 },
    }));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  const emailChannel = async (name: string, to: string[], password = PASSWORD) => {
    const created = await api<Body>('/v1/channels', {
      method: 'POST',
      body: {
        name,
        email: { host: '127.0.0.1', port, tls: 'none', user: USER, password, from: 'wrtfleet@fleet.example', to },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toBeUndefined();
    expect(JSON.stringify(created.body)).not.toContain(password);
    return created.body.id as string;
  };
  const settled = async (id: string) => {
    await eventually(
      async () =>
        (await controller.db.prisma.alertNotification.findUniqueOrThrow({ where: { id } })).state !== 'pending',
      15_000,
      `notification ${id} settled`,
    );
    return controller.db.prisma.alertNotification.findUniqueOrThrow({
      where: { id },
      include: { deliveries: { orderBy: { attempt: 'asc' } } },
    });
  };

  it('sends the notification as a message with the subject, recipients and text, after AUTH', async () => {
    const channelId = await emailChannel('ops-mail', ['ops@fleet.example', 'oncall@fleet.example']);
    const id = await queueNotification(controller.db.prisma, channelId, '3 routers offline: site:ams');
    const row = await settled(id);
    expect(row).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(row.deliveries).toMatchObject([{ outcome: 'delivered', statusCode: 250, error: null }]);
    expect(messages).toHaveLength(1);
    const [message] = messages;
    expect(message!.user).toBe(USER);
    expect(message!.from).toBe('wrtfleet@fleet.example');
    expect(message!.to).toEqual(['ops@fleet.example', 'oncall@fleet.example']);
    expect(message!.data).toMatch(/^Subject: \[wrtfleet\] 3 routers offline: site:ams\r?$/m);
    expect(message!.data).toMatch(/^To: ops@fleet\.example, oncall@fleet\.example\r?$/m);
    expect(message!.data).toContain('New (2):');
    expect(message!.data).toContain('  - router ap-1: no contact for 5 minutes');
    expect(message!.data).toContain('Resolved (1):');
    expect(message!.data).toContain('Still firing: 1');
    expect(message!.data).toContain(`X-Wrtfleet-Delivery: ${id}`);
  });

  it('fails at once on a permanent refusal (550), and on a wrong password (535), never naming it', async () => {
    const before = messages.length;
    const refused = await settled(
      await queueNotification(controller.db.prisma, await emailChannel('nobody-mail', ['nobody@fleet.example'])),
    );
    expect(refused).toMatchObject({ state: 'failed', attempts: 1 });
    expect(refused.deliveries).toMatchObject([{ outcome: 'failed', statusCode: 550 }]);
    expect(refused.deliveries[0]!.error).toContain('No such user');

    const wrong = 'not the password';
    const badAuth = await settled(
      await queueNotification(controller.db.prisma, await emailChannel('bad-auth', ['ops@fleet.example'], wrong)),
    );
    expect(badAuth).toMatchObject({ state: 'failed', attempts: 1 });
    expect(badAuth.deliveries).toMatchObject([{ outcome: 'failed', statusCode: 535 }]);
    expect(badAuth.deliveries[0]!.error).not.toContain(wrong);
    expect(messages.length).toBe(before);
  });

  it('retries a temporary refusal (451) until the server takes the message', async () => {
    const row = await settled(
      await queueNotification(controller.db.prisma, await emailChannel('busy-mail', ['busy@fleet.example'])),
    );
    expect(row).toMatchObject({ state: 'delivered', attempts: 3 });
    expect(row.deliveries.map((d) => [d.outcome, d.statusCode])).toEqual([
      ['retry', 451],
      ['retry', 451],
      ['delivered', 250],
    ]);
    expect(messages.at(-1)!.to).toEqual(['busy@fleet.example']);
  });
});
