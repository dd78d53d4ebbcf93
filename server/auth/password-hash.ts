import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { boundedConcurrencyGate } from '../../core/concurrency-gate.js';

/**
 * scrypt parameters: N=2^15, r=8, p=1 costs 32 MiB and ~0.1-0.3 s per hash (0.23 s median on
 * the 2-core test machine), which makes an offline guess expensive while a sign-in stays quick. They are stored in every hash,
 * so raising them later leaves existing passwords verifiable.
 */
const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
const MAX_MEM = 128 * COST * BLOCK_SIZE * 2;

/**
 * The password checks (sign-in, own password change) running at once, process-wide, and how
 * many may wait. scrypt runs on libuv's four pool threads, which file and DNS work share: a
 * burst that started one hash per request queued another operator's sign-in behind all of
 * them (14.8 s at 150 requests). Two at once leave threads free; 16 waiting is about 2 s at
 * 0.23 s a hash, and a check past that is refused at once (GateFull, a 503 with Retry-After).
 */
export const passwordChecks = boundedConcurrencyGate(2, 16);

/** The shortest password an account may have. */
export const MIN_PASSWORD_LENGTH = 12;
/** scrypt hashes any length; a cap keeps a megabyte "password" from costing the controller work. */
export const MAX_PASSWORD_LENGTH = 1024;

function derive(password: string, salt: Buffer, options: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt base64url>$<key base64url>`, with a fresh random salt per call. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, { N: COST, r: BLOCK_SIZE, p: PARALLELISM, maxmem: MAX_MEM }, KEY_LENGTH);
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored`, compared in constant time; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N > 2 ** 20) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || expected.length === 0) return false;
  const key = await derive(password, salt, { N, r, p, maxmem: 128 * N * r * 2 }, expected.length);
  return timingSafeEqual(key, expected);
}

/**
 * A hash of a password nobody has: verified against when a sign-in names no account, so an
 * unknown name takes as long as a wrong password and timing does not tell which names exist.
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(32).toString('base64url'));
  return decoy;
}
