import type { NotificationPayload } from '../notification-payload.js';
import type { AttemptResult, ChannelTarget } from './delivery-attempt.js';
import { postJson } from './http-post.js';
import { notificationText, type NotificationText } from './notification-text.js';

/** Slack's limits: a header's text, a section's text. */
const HEADER_CHARS = 150;
const SECTION_CHARS = 3000;

/** mrkdwn's three control characters (Slack, "Formatting text for app surfaces"). */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The incoming-webhook message: `text` (the notification's line, which Mattermost, Rocket.Chat
 * and Slack's own notifications show) and `blocks` (a header, the counts, the alerts by section).
 */
export function slackMessage(text: NotificationText) {
  const blocks: object[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(text.title, HEADER_CHARS) } },
    { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(text.counts) } },
  ];
  for (const s of text.sections) {
    const lines = s.lines.map((l) => `• ${escapeMrkdwn(l)}`);
    if (s.more) lines.push(`_… and ${s.more} more_`);
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: cut(`*${s.heading}*\n${lines.join('\n')}`, SECTION_CHARS) },
    });
  }
  if (text.stillFiring)
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `Still firing: ${text.stillFiring}` }] });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(text.footer) }] });
  return { text: `${text.title} (${text.counts})`, blocks };
}

export async function sendSlack(
  target: ChannelTarget,
  payload: NotificationPayload,
  timeoutMs: number,
): Promise<AttemptResult> {
  if (!target.secret) return { outcome: 'failed', error: 'the channel has no webhook URL' };
  return postJson(target.secret, JSON.stringify(slackMessage(notificationText(payload))), {}, timeoutMs);
}
