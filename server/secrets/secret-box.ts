import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const FORMAT = 'v1';

export class DataKeyError extends Error {}
export class DecryptionError extends Error {}

function parseKey(base64: string, what: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES)
    throw new DataKeyError(`${what} must be base64 of exactly ${KEY_BYTES} bytes (openssl rand -base64 32)`);
  return key;
}

/** Short, non-secret id of a key: tells which key sealed a ciphertext (rotation), reveals nothing about it. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('wrtfleet data key id').update(key).digest('hex').slice(0, 12);
}

/**
 * The data key for secrets at rest: WRTFLEET_DATA_KEY (base64, 32 bytes) when set, which
 * replicas with separate data directories need; otherwise <dataDir>/data-key, created with
 * mode 0600 at first start. The key never goes into the database it protects.
 */
export async function loadDataKey(options: { dataDir: string; dataKey?: string }, log?: Logger): Promise<Buffer> {
  if (options.dataKey) return parseKey(options.dataKey, 'WRTFLEET_DATA_KEY');
  const file = path.resolve(options.dataDir, 'data-key');
  try {
    return parseKey(await readFile(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(path.dirname(file), { recursive: true });
  const key = randomBytes(KEY_BYTES);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
  log?.warn(
    { file },
    'created the data key for secrets at rest (mode 0600); back it up: without it stored router credentials are lost',
  );
  return key;
}

/**
 * AES-256-GCM for small secrets (SSH passwords and keys). Each value gets a fresh random
 * IV; the associated data binds a ciphertext to its row (a ciphertext copied to another
 * router's row fails to decrypt). Format: v1:<keyId>:<iv>:<ciphertext>:<tag> (base64url).
 * Keys from before a rotation decrypt old values until they are re-sealed.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(
    private readonly current: Buffer,
    previous: Buffer[] = [],
  ) {
    if (current.length !== KEY_BYTES) throw new DataKeyError(`the data key must be ${KEY_BYTES} bytes`);
    this.currentKeyId = keyId(current);
    this.keys.set(this.currentKeyId, current);
    for (const k of previous) this.keys.set(keyId(k), k);
  }

  static fromBase64(previous: string[]): Buffer[] {
    return previous.map((p, i) => parseKey(p, `WRTFLEET_DATA_KEY_PREVIOUS[${i}]`));
  }

  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      FORMAT,
      this.currentKeyId,
      iv.toString('base64url'),
      ct.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join(':');
  }

  open(sealed: string, associatedData: string): string {
    const parts = sealed.split(':');
    if (parts.length !== 5 || parts[0] !== FORMAT) throw new DecryptionError('not a sealed secret');
    const key = this.keys.get(parts[1]!);
    if (!key)
      throw new DecryptionError(
        `sealed with an unknown data key (${parts[1]}); set WRTFLEET_DATA_KEY_PREVIOUS to the key used before the rotation`,
      );
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[2]!, 'base64url'));
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(Buffer.from(parts[4]!, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // Never echo the ciphertext or the reason's internals: a wrong key and tampering look the same.
      throw new DecryptionError('the sealed secret failed authentication (wrong key, wrong row or tampered)');
    }
  }

  /** True when the value was sealed with an older key and should be re-sealed. */
  isStale(sealed: string): boolean {
    return sealed.split(':')[1] !== this.currentKeyId;
  }
}
