import type { Logger } from 'pino';
import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import type { SecretBox } from './secret-box.js';

export type CredentialAuthType = 'password' | 'privateKey';

export interface CredentialInput {
  host: string;
  port?: number;
  username: string;
  authType: CredentialAuthType;
  password?: string;
  privateKey?: string;
  passphrase?: string;
  /** "SHA256:..." of the router's SSH host key; unset means trust on first use by the proxy. */
  hostKeyFingerprint?: string | null;
  /** Identity of the proxy agent that manages this router. */
  proxyIdentity?: string | null;
}

/** What the API shows: everything except the secret. */
export interface CredentialView {
  routerId: string;
  host: string;
  port: number;
  username: string;
  authType: CredentialAuthType;
  hasSecret: boolean;
  hasPassphrase: boolean;
  hostKeyFingerprint: string | null;
  proxyIdentity: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The decrypted credential, for the proxy side only; never logged, never serialized to the API. */
export interface RevealedCredential {
  host: string;
  port: number;
  username: string;
  authType: CredentialAuthType;
  password?: string;
  privateKey?: string;
  passphrase?: string;
  hostKeyFingerprint: string | null;
}

interface SealedPayload {
  password?: string;
  privateKey?: string;
  passphrase?: string;
}

const aad = (routerId: string) => `router-credential:${routerId}`;

/**
 * SSH credentials for proxy-managed routers, encrypted at rest with the data key
 * (RouterCredential.secretCiphertext). The API can write and describe them, never read the
 * secret back; `reveal` is the one place it is decrypted. Writes take the transaction of an
 * audited change (`db`), so the credential and its audit event commit together.
 */
export class RouterCredentials {
  constructor(
    private readonly db: PrismaClient,
    private readonly box: SecretBox,
    private readonly log: Logger,
  ) {}

  async put(routerId: string, input: CredentialInput, db: Prisma.TransactionClient = this.db): Promise<CredentialView> {
    const payload: SealedPayload =
      input.authType === 'password'
        ? { password: input.password }
        : { privateKey: input.privateKey, ...(input.passphrase ? { passphrase: input.passphrase } : {}) };
    const secretCiphertext = this.box.seal(JSON.stringify(payload), aad(routerId));
    const data = {
      host: input.host,
      port: input.port ?? 22,
      username: input.username,
      authType: input.authType,
      secretCiphertext,
      hostKeyFingerprint: input.hostKeyFingerprint ?? null,
      proxyIdentity: input.proxyIdentity ?? null,
    };
    const row = await db.routerCredential.upsert({
      where: { routerId },
      create: { routerId, ...data },
      update: data,
    });
    return view(row, !!input.passphrase);
  }

  async describe(routerId: string, db: Prisma.TransactionClient = this.db): Promise<CredentialView | null> {
    const row = await db.routerCredential.findUnique({ where: { routerId } });
    if (!row) return null;
    let hasPassphrase = false;
    try {
      hasPassphrase = !!(JSON.parse(this.box.open(row.secretCiphertext, aad(routerId))) as SealedPayload).passphrase;
    } catch {
      /* a value sealed with a key we no longer have: describe it anyway */
    }
    return view(row, hasPassphrase);
  }

  async remove(routerId: string, db: Prisma.TransactionClient = this.db): Promise<boolean> {
    const { count } = await db.routerCredential.deleteMany({ where: { routerId } });
    return count > 0;
  }

  /** Decrypts a router's credential for the proxy that drives it over SSH. */
  async reveal(routerId: string): Promise<RevealedCredential | null> {
    const row = await this.db.routerCredential.findUnique({ where: { routerId } });
    if (!row) return null;
    const secret = JSON.parse(this.box.open(row.secretCiphertext, aad(routerId))) as SealedPayload;
    return {
      host: row.host,
      port: row.port,
      username: row.username,
      authType: row.authType as CredentialAuthType,
      hostKeyFingerprint: row.hostKeyFingerprint,
      ...secret,
    };
  }

  /** Re-seals values sealed with a previous data key (after a rotation); returns how many. */
  async resealStale(): Promise<number> {
    const rows = await this.db.routerCredential.findMany({ select: { routerId: true, secretCiphertext: true } });
    let count = 0;
    for (const row of rows) {
      if (!this.box.isStale(row.secretCiphertext)) continue;
      try {
        const plain = this.box.open(row.secretCiphertext, aad(row.routerId));
        await this.db.routerCredential.update({
          where: { routerId: row.routerId },
          data: { secretCiphertext: this.box.seal(plain, aad(row.routerId)) },
        });
        count += 1;
      } catch (err) {
        this.log.error(
          { routerId: row.routerId, reason: (err as Error).message },
          'cannot re-seal a router credential; set WRTFLEET_DATA_KEY_PREVIOUS',
        );
      }
    }
    if (count) this.log.info({ count }, 're-sealed router credentials with the current data key');
    return count;
  }
}

function view(
  row: {
    routerId: string;
    host: string;
    port: number;
    username: string;
    authType: string;
    hostKeyFingerprint: string | null;
    proxyIdentity: string | null;
    createdAt: Date;
    updatedAt: Date;
  },
  hasPassphrase: boolean,
): CredentialView {
  return {
    routerId: row.routerId,
    host: row.host,
    port: row.port,
    username: row.username,
    authType: row.authType as CredentialAuthType,
    hasSecret: true,
    hasPassphrase,
    hostKeyFingerprint: row.hostKeyFingerprint,
    proxyIdentity: row.proxyIdentity,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
