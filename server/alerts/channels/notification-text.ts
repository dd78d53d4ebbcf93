import type { AlertLine, NotificationPayload } from '../notification-payload.js';

/** Alerts named one by one in a chat message or an e-mail; the counts cover the rest. */
export const LISTED_IN_TEXT = 20;

export interface TextSection {
  /** "New", "Resolved". */
  heading: string;
  lines: string[];
  /** How many more the payload counts than the lines name. */
  more: number;
}

/** The same words for Slack and e-mail: a title, a line of counts, the new and resolved alerts. */
export interface NotificationText {
  title: string;
  counts: string;
  sections: TextSection[];
  /** Firing since an earlier notification, not named again. */
  stillFiring: number;
  footer: string;
}

/** "router ap-17 (offline since 2026-12-06T10:00:00Z): no contact for 5 minutes". */
export function alertLineText(alert: AlertLine): string {
  return `${alert.subject.kind} ${alert.subject.name}: ${alert.summary}`;
}

export function notificationText(payload: NotificationPayload, limit = LISTED_IN_TEXT): NotificationText {
  const { counts } = payload;
  const stillFiring = Math.max(0, counts.firing - counts.new);
  const section = (heading: string, alerts: AlertLine[], total: number): TextSection => {
    const lines = alerts.slice(0, limit).map(alertLineText);
    return { heading, lines, more: Math.max(0, total - lines.length) };
  };
  const sections = [section('New', payload.new, counts.new), section('Resolved', payload.resolved, counts.resolved)];
  return {
    title: payload.title,
    counts: payload.test
      ? 'This is a test: the channel works. No alert fired.'
      : `${payload.rule.severity} · ${counts.firing} firing · ${counts.new} new · ${counts.resolved} resolved`,
    sections: sections.filter((s) => s.lines.length > 0 || s.more > 0),
    stillFiring,
    footer: `rule ${payload.rule.name} · group ${payload.group.key} #${payload.group.sequence} · notification ${payload.id}`,
  };
}

/** The e-mail body: plain text, one alert a line. */
export function notificationPlainText(payload: NotificationPayload, limit = LISTED_IN_TEXT): string {
  const text = notificationText(payload, limit);
  const out = [text.title, '', text.counts];
  for (const s of text.sections) {
    out.push('', `${s.heading} (${s.lines.length + s.more}):`, ...s.lines.map((l) => `  - ${l}`));
    if (s.more) out.push(`  ... and ${s.more} more`);
  }
  if (text.stillFiring) out.push('', `Still firing: ${text.stillFiring} (told before)`);
  out.push('', '--', text.footer, `sent by wrtfleet at ${payload.createdAt}`);
  return `${out.join('\n')}\n`;
}
