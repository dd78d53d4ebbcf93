/**
 * The alerts' pure logic, shared by the Alerts page and the router page: what a subject links
 * to, how long a duration reads, which silence a dialog's choices make, how a silence reads.
 * No React here (test/web-admin/logic/ tests it).
 */
import type { Alert, SilenceBody } from './alert-types.js';

/** The views of the Alerts page, each an API `status` (`all` asks for none). */
export const ALERT_VIEWS = [
  { id: 'active', label: 'Active' },
  { id: 'resolved', label: 'Resolved' },
  { id: 'all', label: 'All' },
] as const;
export type AlertView = (typeof ALERT_VIEWS)[number]['id'];

export function alertViewOf(value: string | null): AlertView {
  return ALERT_VIEWS.some((v) => v.id === value) ? (value as AlertView) : 'active';
}

/** The console page of an alert's subject: a router's or a rollout's; audit and replica have none. */
export function subjectHref(subject: Alert['subject']): string | null {
  if (subject.kind === 'router') return `/routers/${encodeURIComponent(subject.id)}`;
  if (subject.kind === 'rollout') return `/rollouts/${encodeURIComponent(subject.id)}`;
  return null;
}

/** A time in the alert tables: short date and time in the browser's locale ("12/7/26, 4:17 AM"). */
export const WHEN_FORMAT: Intl.DateTimeFormatOptions = { dateStyle: 'short', timeStyle: 'short' };
export function formatWhen(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString(undefined, WHEN_FORMAT) : '—';
}

/** An alert an operator can still act on (acknowledge, silence): not resolved. */
export const isOpen = (alert: Pick<Alert, 'status'>): boolean => alert.status !== 'resolved';

/** Seconds as an operator reads a rule's `for`: 0s, 90s, 5m, 2h, 1d 6h. */
export function formatSeconds(seconds: number): string {
  if (seconds < 120 && seconds % 60 !== 0) return `${seconds}s`;
  if (seconds === 0) return '0s';
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3_600);
  const m = Math.floor((seconds % 3_600) / 60);
  const s = seconds % 60;
  return [d ? `${d}d` : '', h ? `${h}h` : '', m ? `${m}m` : '', s ? `${s}s` : ''].filter(Boolean).join(' ');
}

/** What a silence holds back: the alerts of this router, of this rule, or this rule's for this router. */
export type SilenceScope = 'router' | 'rule' | 'both';
export const SILENCE_DURATIONS = [
  { id: '1h', label: '1 hour', ms: 3_600_000 },
  { id: '4h', label: '4 hours', ms: 4 * 3_600_000 },
  { id: '24h', label: '24 hours', ms: 24 * 3_600_000 },
  { id: 'custom', label: 'until…', ms: 0 },
] as const;
export type SilenceDuration = (typeof SILENCE_DURATIONS)[number]['id'];

export interface SilenceChoices {
  scope: SilenceScope;
  duration: SilenceDuration;
  /** A datetime-local value ("2026-12-07T18:30", the browser's time zone), for `custom`. */
  customEnd: string;
  comment: string;
}

/** The scopes an alert can be silenced by: a router's own alert by router, rule or both; others by rule. */
export function silenceScopes(alert: Pick<Alert, 'subject'>): SilenceScope[] {
  return alert.subject.kind === 'router' ? ['both', 'router', 'rule'] : ['rule'];
}

export type SilenceErrors = Partial<Record<'comment' | 'customEnd', string>>;

/**
 * The POST /v1/silences body the dialog's choices make for `alert`, or what is wrong with them.
 * A router is named by id (`{ ids: [id] }`), as a rollout's selector names it.
 */
export function silenceRequest(
  alert: Pick<Alert, 'rule' | 'subject'>,
  choices: SilenceChoices,
  now: number,
): { ok: true; body: SilenceBody } | { ok: false; errors: SilenceErrors } {
  const errors: SilenceErrors = {};
  const comment = choices.comment.trim();
  if (!comment) errors.comment = 'Say why: the silence is listed with its comment.';
  let endsAt: number;
  if (choices.duration === 'custom') {
    endsAt = choices.customEnd ? new Date(choices.customEnd).getTime() : Number.NaN;
    if (Number.isNaN(endsAt)) errors.customEnd = 'Choose when the silence ends.';
    else if (endsAt <= now) errors.customEnd = 'The end must be in the future.';
  } else {
    endsAt = now + SILENCE_DURATIONS.find((d) => d.id === choices.duration)!.ms;
  }
  if (errors.comment || errors.customEnd) return { ok: false, errors };
  const scope = silenceScopes(alert).includes(choices.scope) ? choices.scope : 'rule';
  const body: SilenceBody = { comment, endsAt: new Date(endsAt).toISOString() };
  if (scope !== 'router') body.rule = alert.rule.name;
  if (scope !== 'rule') body.selector = { ids: [alert.subject.id] };
  return { ok: true, body };
}

/** The router ids a silence's selector names (`{ ids: [...] }`), none for any other selector. */
export function silenceRouterIds(selector: unknown): string[] {
  const ids = (selector as { ids?: unknown } | null)?.ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** A silence's matcher in words: "rule router-offline, router r1" (names from `routerNames` where known). */
export function describeSilence(
  silence: { rule: string | null; selector: unknown },
  routerNames: ReadonlyMap<string, string> = new Map(),
): string {
  const parts: string[] = [silence.rule ? `rule ${silence.rule}` : 'every rule'];
  const selector = (silence.selector ?? null) as Record<string, unknown> | null;
  if (selector) {
    const list = (key: string) => (Array.isArray(selector[key]) ? (selector[key] as unknown[]).map(String) : []);
    const ids = list('ids');
    if (selector.all === true) parts.push('every router');
    if (ids.length)
      parts.push(ids.length === 1 ? `router ${routerNames.get(ids[0]!) ?? ids[0]}` : `${ids.length} routers by id`);
    if (list('tags').length) parts.push(`tagged ${list('tags').join(' and ')}`);
    if (list('soc').length) parts.push(`SoC ${list('soc').join(' or ')}`);
    if (list('release').length) parts.push(`OpenWrt ${list('release').join(' or ')}`);
  } else parts.push('every subject');
  return parts.join(', ');
}
