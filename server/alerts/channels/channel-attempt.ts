import type { NotificationPayload } from '../notification-payload.js';
import type { AttemptResult, ChannelKind, Sender } from './delivery-attempt.js';
import { scrubError } from './delivery-attempt.js';
import type { DeliveryTarget } from './channel-store.js';
import { sendEmail } from './email-sender.js';
import { sendSlack } from './slack-sender.js';
import { sendWebhook } from './webhook-sender.js';

const SENDERS: Record<ChannelKind, Sender> = { webhook: sendWebhook, slack: sendSlack, email: sendEmail };

/**
 * One attempt to send a notification to a channel, as the delivery log records it: the outcome,
 * the time it took, and an error text that never names the channel's secret.
 */
export async function attemptDelivery(
  target: DeliveryTarget,
  payload: NotificationPayload,
  timeoutMs: number,
): Promise<AttemptResult & { durationMs: number }> {
  const started = performance.now();
  let result: AttemptResult;
  if (target.deleted) result = { outcome: 'failed', error: 'the channel was deleted before the notification was sent' };
  else if (target.unusable)
    result = { outcome: 'failed', error: `the channel's secret cannot be opened: ${target.unusable}` };
  else {
    try {
      result = await SENDERS[target.kind](target, payload, timeoutMs);
    } catch (err) {
      // A sender classifies what it knows; anything else may pass on the next attempt.
      result = { outcome: 'retry', error: (err as Error)?.message ?? String(err) };
    }
  }
  const durationMs = Math.round(performance.now() - started);
  return { ...result, ...(result.error ? { error: scrubError(result.error, target) } : {}), durationMs };
}
