import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { DecryptionError, SecretBox } from '../../server/secrets/secret-box.js';
import { enrollTestAgent, openStream } from '../support/agents.js';
import { authedFetch, startTestController } from '../support/controller.js';
import { BACKENDS, type TestDatabase } from '../support/databases.js';

const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x));

describe.each(BACKENDS)('secrets at rest and out of logs on %s', (_name, createDb) => {
  let db: TestDatabase;
  let controller: Controller;
  let logs: string[];
  let token: string;
  /** Every response body the test saw, to scan for planted secrets. */
  const responses: string[] = [];
  let api: ReturnType<typeof authedFetch>;

  beforeAll(async () => {
    db = await createDb();
    ({ controller, logs, token } = await startTestController(db, { security: { insecureAgents: false } }));
    const raw = authedFetch(controller.httpUrl, token);
    api = async (p, init) => {
      const res = await raw(p, init);
      responses.push(typeof res.body === 'string' ? res.body : JSON.stringify(res.body));
      return res;
    };
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const password = `pw-PLANTED-${randomBytes(8).toString('hex')}`;
  const passphrase = `pp-PLANTED-${randomBytes(8).toString('hex')}`;
  const keyBody = randomBytes(48).toString('base64');
  const privateKey = `-----BEGIN OPENSSH PRIVATE KEY-----\n${keyBody}\n-----END OPENSSH PRIVATE KEY-----\n`;

  it('router SSH credentials: stored sealed (AES-256-GCM), described without the secret, decrypted only by reveal, bound to their row', async () => {
    const creds = await enrollTestAgent(controller, 'lab:proxied');
    const s = openStream(controller.grpcAddress, creds.channelCredentials, 'lab:proxied');
    await s.welcome;
    s.close();
    const router = (await controller.db.prisma.router.findUnique({ where: { identity: 'lab:proxied' } }))!;

    const put = await api(`/v1/routers/${router.id}/credential`, {
      method: 'PUT',
      body: { host: '10.0.0.1', username: 'root', authType: 'password', password },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ host: '10.0.0.1', username: 'root', authType: 'password', hasSecret: true });
    const got = await api(`/v1/routers/${router.id}/credential`);
    expect(got.status).toBe(200);
    const row = await controller.db.prisma.routerCredential.findUniqueOrThrow({ where: { routerId: router.id } });
    expect(row.secretCiphertext).toMatch(/^v1:[0-9a-f]{12}:/);
    expect(row.secretCiphertext).not.toContain(password);
    expect((await controller.security.credentials.reveal(router.id))!.password).toBe(password);

    const keyed = await api(`/v1/routers/${router.id}/credential`, {
      method: 'PUT',
      body: { host: '10.0.0.1', port: 2222, username: 'root', authType: 'privateKey', privateKey, passphrase },
    });
    expect(keyed.status).toBe(200);
    expect(keyed.body).toMatchObject({ authType: 'privateKey', port: 2222, hasPassphrase: true });
    const revealed = (await controller.security.credentials.reveal(router.id))!;
    expect(revealed).toMatchObject({ privateKey, passphrase, port: 2222 });
    expect(revealed.password).toBeUndefined();
    // A ciphertext moved to another router's row does not decrypt (the row id is authenticated data).
    const sealed = (await controller.db.prisma.routerCredential.findUniqueOrThrow({ where: { routerId: router.id } }))
      .secretCiphertext;
    const box = new SecretBox(
      Buffer.from((await readFile(path.join(db.dataDir, 'data-key'), 'utf8')).trim(), 'base64'),
    );
    expect(box.open(sealed, `router-credential:${router.id}`)).toContain(passphrase);
    expect(() => box.open(sealed, 'router-credential:someone-else')).toThrow(DecryptionError);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, `router-credential:${router.id}`)).toThrow(
      DecryptionError,
    );
    // Bad requests never echo the secret back either.
    const bad = await api(`/v1/routers/${router.id}/credential`, {
      method: 'PUT',
      body: { host: '10.0.0.1', username: 'root', authType: 'privateKey', privateKey: password },
    });
    expect(bad.status).toBe(400);
  });

  it('rotation: values sealed with the previous data key are re-sealed with the new one', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const sealed = new SecretBox(oldKey).seal('s3cret', 'aad');
    const rotated = new SecretBox(newKey, [oldKey]);
    expect(rotated.isStale(sealed)).toBe(true);
    expect(rotated.open(sealed, 'aad')).toBe('s3cret');
    expect(rotated.isStale(rotated.seal('s3cret', 'aad'))).toBe(false);
    expect(() => new SecretBox(newKey).open(sealed, 'aad')).toThrow(/unknown data key/);
  });

  it('no planted secret appears in any log line or API response (tokens, enrollment tokens, passwords, keys, data key, CA key)', async () => {
    // Mint more secrets through the API, and log objects shaped like the ones that carry them.
    const apiToken = (await api('/v1/tokens', { method: 'POST', body: { name: 'scan', scopes: ['read'] } })).body
      .token as string;
    const enrollToken = (await api('/v1/enrollment-tokens', { method: 'POST', body: {} })).body.token as string;
    await fetch(`${controller.httpUrl}/v1/routers`, { headers: { authorization: `Bearer ${apiToken}` } });
    await fetch(`${controller.httpUrl}/v1/routers`, { headers: { authorization: `Bearer wft_${password}` } });
    const log = controller.http.log;
    log.info({ password, privateKey, passphrase, token: apiToken, secret: enrollToken }, 'planted at the top level');
    log.warn(
      {
        credential: { password, privateKey, passphrase },
        request: { token: apiToken, authorization: `Bearer ${apiToken}` },
      },
      'planted one level down',
    );
    log.error(
      { req: { headers: { authorization: `Bearer ${apiToken}` } }, body: { credential: { password } } },
      'planted in request shapes',
    );

    const dataKey = (await readFile(path.join(db.dataDir, 'data-key'), 'utf8')).trim();
    const caKey = (await readFile(path.join(db.dataDir, 'pki', 'ca.key'), 'utf8')).split('\n')[1]!;
    const planted = {
      password,
      passphrase,
      keyBody: keyBody.slice(0, 40),
      apiToken,
      enrollToken,
      adminToken: token,
      dataKey,
      caKey,
    };

    expect(logs.length).toBeGreaterThan(20);
    expect(logs.some((l) => l.includes('planted one level down'))).toBe(true);
    for (const [what, secret] of Object.entries(planted)) {
      const leakedLog = logs.find((l) => l.includes(secret));
      expect(leakedLog, `${what} leaked into a log line`).toBeUndefined();
    }
    // Minting responses carry their own new secret exactly once; nothing else may.
    const others = responses.filter((r) => !r.includes('"token":"wf'));
    for (const [what, secret] of Object.entries({
      password,
      passphrase,
      keyBody: keyBody.slice(0, 40),
      dataKey,
      caKey,
      adminToken: token,
    })) {
      expect(
        others.find((r) => r.includes(secret)),
        `${what} leaked into an API response`,
      ).toBeUndefined();
    }
    // The audit history holds none of them either.
    const audit = json(await controller.db.prisma.auditEvent.findMany());
    for (const [what, secret] of Object.entries(planted))
      expect(audit.includes(secret), `${what} in the audit log`).toBe(false);
  });

  it('key material on disk is owner-only', async () => {
    for (const f of ['data-key', 'admin-token', 'pki/ca.key', 'pki/server.key']) {
      expect((await stat(path.join(db.dataDir, f))).mode & 0o077, f).toBe(0);
    }
  });
});
