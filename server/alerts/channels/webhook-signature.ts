import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names of a signed webhook delivery (docs/ALERTS.md, Channels). */
export const DELIVERY_HEADER = 'wrtfleet-delivery';
export const TIMESTAMP_HEADER = 'wrtfleet-timestamp';
export const SIGNATURE_HEADER = 'wrtfleet-signature';

/** A receiver refuses a timestamp further than this from its own clock (replay protection). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `v1=<hex HMAC-SHA256(secret, timestamp + "." + rawBody)>`: the whole secret string (whsec_...) is the key. */
export function signWebhook(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return `v1=${mac.digest('hex')}`;
}

export type SignatureVerdict =
  { ok: true } | { ok: false; reason: 'malformed' | 'timestamp_outside_tolerance' | 'signature_mismatch' };

/**
 * What a receiver checks: the timestamp within `toleranceSeconds` of now (an old capture replayed
 * later is refused), then the signature, compared in constant time. The header may carry several
 * comma-separated `v1=` values (a secret rotation); one match is enough.
 */
export function verifyWebhook(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  rawBody: string | Buffer,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): SignatureVerdict {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed' };
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  const expected = Buffer.from(signWebhook(secret, Number(timestamp), rawBody));
  for (const given of signature.split(',').map((s) => Buffer.from(s.trim()))) {
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'signature_mismatch' };
}
