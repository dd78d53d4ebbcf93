/**
 * The flags of `wrtfleet alerts`, turned into the API's query and body: which alerts `ls` asks
 * for, how long `silence --for` lasts, what a silence matches. Pure: no I/O, unit-tested on its own.
 */
import { API_ENUMS } from '../web-admin/src/api/api-enums.generated.js';
import { UsageError, type CliOptions } from './cli-context.js';

/** `--status`: an alert status, `active` (every unresolved one, the default) or `all`. */
export const LIST_STATUSES = ['active', ...API_ENUMS.AlertStatus, 'all'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };
const DURATION = /^(?:\d+[smhdw])+$/;

/** `--for 2h`, `30m`, `1d12h`, `90s`: a positive duration in seconds; anything else is a usage error. */
export function parseDuration(text: string, flag = '--for'): number {
  const value = text.trim().toLowerCase();
  if (!DURATION.test(value))
    throw new UsageError(`${flag} must be a duration such as 30m, 2h or 1d12h (units s, m, h, d, w); got "${text}"`);
  let seconds = 0;
  for (const [, n, unit] of value.matchAll(/(\d+)([smhdw])/g)) seconds += Number(n) * UNIT_SECONDS[unit!]!;
  if (seconds <= 0) throw new UsageError(`${flag} must be longer than zero; got "${text}"`);
  return seconds;
}

/** The one rule `--rule` names (the flag is repeatable for `channels`; an alert command takes one). */
export function oneRule(opts: CliOptions, command: string): string | undefined {
  const rules = opts.rule ?? [];
  if (rules.length > 1) throw new UsageError(`${command} takes one --rule; got ${rules.length}`);
  return rules[0];
}

/** The query of `alerts ls` from its flags, the router already resolved to its id. */
export function alertListQuery(opts: CliOptions, routerId: string | undefined) {
  const status = (opts.status ?? 'active') as ListStatus;
  if (!LIST_STATUSES.includes(status))
    throw new UsageError(`--status must be one of ${LIST_STATUSES.join(', ')}; got "${opts.status}"`);
  const severity = opts.severity;
  if (severity !== undefined && !(API_ENUMS.AlertSeverity as readonly string[]).includes(severity))
    throw new UsageError(`--severity must be one of ${API_ENUMS.AlertSeverity.join(', ')}; got "${severity}"`);
  return {
    status: status === 'all' ? undefined : status,
    severity,
    rule: oneRule(opts, 'alerts ls'),
    router: routerId,
  };
}

/** What `alerts silence` sends: the rule and the routers it names (by id or tags), its end, its comment. */
export function silenceBody(
  opts: CliOptions,
  routerId: string | undefined,
  now: number,
): { rule?: string; selector?: { ids?: string[]; tags?: string[] }; comment: string; endsAt: string } {
  const rule = oneRule(opts, 'alerts silence');
  if (!opts.router && !opts.tags && !rule)
    throw new UsageError('alerts silence needs what to silence: --router NAME_OR_ID, --tags TAG... or --rule NAME');
  if (opts.for === undefined) throw new UsageError('alerts silence needs --for DURATION (e.g. 2h, 30m)');
  const seconds = parseDuration(opts.for);
  const comment = opts.comment?.trim();
  if (!comment) throw new UsageError('alerts silence needs --comment TEXT: say why');
  const selector: { ids?: string[]; tags?: string[] } = {};
  if (routerId) selector.ids = [routerId];
  if (opts.tags) selector.tags = opts.tags;
  return {
    ...(rule ? { rule } : {}),
    ...(Object.keys(selector).length ? { selector } : {}),
    comment,
    endsAt: new Date(now + seconds * 1000).toISOString(),
  };
}

/** A silence's matcher in words, for the tables: "rule router-offline, routers tagged site:ams". */
export function describeSilenceMatch(silence: { rule: string | null; selector: unknown }): string {
  const parts = [silence.rule ? `rule ${silence.rule}` : 'every rule'];
  const selector = silence.selector as { ids?: string[]; tags?: string[]; all?: boolean } | null;
  if (!selector) parts.push('every subject');
  else {
    if (selector.all) parts.push('every router');
    if (selector.ids?.length) parts.push(`router ${selector.ids.join(', ')}`);
    if (selector.tags?.length) parts.push(`routers tagged ${selector.tags.join(' and ')}`);
  }
  return parts.join(', ');
}
