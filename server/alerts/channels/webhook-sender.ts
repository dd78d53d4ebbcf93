import type { NotificationPayload } from '../notification-payload.js';
import type { AttemptResult, ChannelTarget } from './delivery-attempt.js';
import { postJson } from './http-post.js';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from './webhook-signature.js';

/**
 * POSTs the notification as JSON, signed. A retry sends the same body and delivery id under a
 * new timestamp and signature, so a receiver drops repeats by id and old captures by time.
 */
export async function sendWebhook(
  target: ChannelTarget,
  payload: NotificationPayload,
  timeoutMs: number,
): Promise<AttemptResult> {
  if (!target.secret) return { outcome: 'failed', error: 'the channel has no signing secret' };
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  return postJson(
    String(target.settings.url),
    body,
    {
      [DELIVERY_HEADER]: payload.id,
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signWebhook(target.secret, timestamp, body),
    },
    timeoutMs,
  );
}
