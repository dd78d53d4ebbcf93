import type { NotificationPayload } from '../notification-payload.js';

/** delivered: the receiver took it; retry: it may take it later; failed: it never will (as configured). */
export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

export interface AttemptResult {
  outcome: DeliveryOutcome;
  /** The HTTP status, or the SMTP reply code. */
  statusCode?: number;
  /** Why it was not delivered, in a sentence; never the channel's secret. */
  error?: string;
}

export type ChannelKind = 'webhook' | 'slack' | 'email';

/** A channel as a sender needs it: its settings and its secret, opened. Never logged, never returned. */
export interface ChannelTarget {
  id: string;
  name: string;
  kind: ChannelKind;
  settings: Record<string, unknown>;
  /** The webhook's HMAC key, the Slack URL, the SMTP password (null: none). */
  secret: string | null;
}

export type Sender = (target: ChannelTarget, payload: NotificationPayload, timeoutMs: number) => Promise<AttemptResult>;

/** Error codes of a connection that may work on the next attempt. */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** A fetch that threw: timeouts and connection failures are retried, anything else is not. */
export function classifyFetchError(err: unknown, timeoutMs: number): AttemptResult {
  const error = err as Error & { cause?: Error & { code?: string } };
  if (error?.name === 'TimeoutError' || error?.name === 'AbortError')
    return { outcome: 'retry', error: `no answer within ${timeoutMs} ms` };
  const cause = error?.cause;
  const code = cause?.code ?? (error as { code?: string })?.code;
  const text = cause?.message ?? error?.message ?? String(err);
  if (code && TRANSIENT_CODES.has(code)) return { outcome: 'retry', error: `connection failed: ${text}` };
  // undici's "fetch failed" without a known code is a network failure all the same.
  if (error instanceof TypeError && error.message === 'fetch failed')
    return { outcome: 'retry', error: `connection failed: ${text}` };
  return { outcome: 'failed', error: text };
}

/** HTTP statuses a receiver may answer differently later: overloaded, rate-limited, timed out. */
export function classifyHttpStatus(status: number): DeliveryOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return 'failed';
}

/**
 * Error text as stored in the delivery log and shown by the API: the secret, and the Slack URL
 * (itself the credential), replaced wherever a library quoted them; cut to a line's length.
 */
export function scrubError(text: string, target: Pick<ChannelTarget, 'secret'>): string {
  let out = text;
  if (target.secret) {
    out = out.split(target.secret).join('[redacted]');
    try {
      // A URL secret may be quoted normalised or percent-encoded.
      const url = new URL(target.secret);
      out = out.split(url.href).join('[redacted]');
      if (url.pathname.length > 1) out = out.split(url.pathname).join('/[redacted]');
    } catch {
      /* not a URL */
    }
  }
  return out.length > 500 ? `${out.slice(0, 497)}...` : out;
}
