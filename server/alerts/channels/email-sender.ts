import nodemailer from 'nodemailer';
import type { NotificationPayload } from '../notification-payload.js';
import type { AttemptResult, ChannelTarget } from './delivery-attempt.js';
import { notificationPlainText } from './notification-text.js';

/** How a channel's SMTP session is protected: TLS from the first byte (465), STARTTLS (587), or neither (a local relay). */
export type SmtpTls = 'implicit' | 'starttls' | 'none';

export interface EmailSettings {
  host: string;
  port: number;
  tls: SmtpTls;
  user?: string;
  from: string;
  to: string[];
}

/** nodemailer's error codes of a session that may work on the next attempt. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET']);

function replyCode(response: string | undefined): number | undefined {
  const m = /^(\d{3})\b/.exec(response ?? '');
  return m ? Number(m[1]) : undefined;
}

/** An SMTP refusal: 4xx is transient (greylisting, a full queue), 5xx permanent; no reply at all is the connection's fault. */
export function classifySmtpError(err: unknown): AttemptResult {
  const e = err as Error & { responseCode?: number; code?: string; response?: string };
  const statusCode = e.responseCode;
  const error = `${e.code ? `${e.code}: ` : ''}${e.message}`;
  if (statusCode !== undefined && statusCode >= 400 && statusCode < 500) return { outcome: 'retry', statusCode, error };
  if (statusCode !== undefined && statusCode >= 500) return { outcome: 'failed', statusCode, error };
  if (e.code && TRANSIENT_CODES.has(e.code)) return { outcome: 'retry', error };
  return { outcome: 'failed', statusCode, error };
}

/**
 * One SMTP session per attempt (no pool: notifications are rare and a pooled connection would
 * outlive a changed server), every step of it bounded by the attempt's time.
 */
export async function sendEmail(
  target: ChannelTarget,
  payload: NotificationPayload,
  timeoutMs: number,
): Promise<AttemptResult> {
  const s = target.settings as unknown as EmailSettings;
  const transport = nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.tls === 'implicit',
    requireTLS: s.tls === 'starttls',
    ignoreTLS: s.tls === 'none',
    auth: s.user ? { user: s.user, pass: target.secret ?? '' } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    name: 'wrtfleet',
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<AttemptResult>((resolve) => {
    timer = setTimeout(() => resolve({ outcome: 'retry', error: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const sent = transport
    .sendMail({
      from: s.from,
      to: s.to,
      subject: `[wrtfleet] ${payload.title}`,
      text: notificationPlainText(payload),
      headers: { 'X-Wrtfleet-Delivery': payload.id },
    })
    .then((info): AttemptResult => {
      const rejected = (info.rejected ?? []).map(String);
      return {
        outcome: 'delivered',
        statusCode: replyCode(info.response),
        error: rejected.length ? `refused recipients: ${rejected.join(', ')}` : undefined,
      };
    }, classifySmtpError);
  try {
    return await Promise.race([sent, timedOut]);
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}
