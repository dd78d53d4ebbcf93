/**
 * `wrtfleet alerts ls|ack|silence|silences|unsilence|rules`: what the controller's alert rules
 * found, acknowledging an alert, silencing what a rule or some routers raise, and the rules.
 */
import type * as Api from '../api-client.js';
import { alertListQuery, describeSilenceMatch, silenceBody } from '../alert-flags.js';
import { intOpt, print, query, UsageError, unknownCommand, type CliContext } from '../cli-context.js';
import { table } from '../output.js';
import { resolveRouterId } from '../router-ref.js';

/** "5m", "0s", "1h30m": a rule's `for` as the flags spell durations. */
function seconds(n: number): string {
  if (n === 0) return '0s';
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  let rest = n;
  return units
    .map(([unit, size]) => {
      const count = Math.floor(rest / size);
      rest -= count * size;
      return count ? `${count}${unit}` : '';
    })
    .join('');
}

function alertRows(items: Api.Alert[]): Record<string, unknown>[] {
  return items.map((a) => ({
    id: a.id,
    severity: a.severity,
    status: a.status,
    rule: a.rule.name,
    subject: `${a.subject.kind} ${a.subject.name}`,
    group: a.group || null,
    fired: a.firedAt,
    resolved: a.resolvedAt,
    acknowledged: a.acknowledged
      ? `${a.acknowledged.by}${a.acknowledged.note ? `: ${a.acknowledged.note}` : ''}`
      : null,
    silencedUntil: a.silence?.endsAt ?? null,
    summary: a.summary,
  }));
}

async function list({ opts, api }: CliContext): Promise<number> {
  const routerId = opts.router ? await resolveRouterId(api, opts.router) : undefined;
  const filter = alertListQuery(opts, routerId);
  const page = await api.get<Api.AlertPage>(
    `/v1/alerts${query({ ...filter, limit: intOpt('limit', opts.limit) ?? 100 })}`,
  );
  print(opts, page, () =>
    page.items.length === 0
      ? filter.status === 'active' && !filter.severity && !filter.rule && !filter.router
        ? 'nothing is firing'
        : 'no alert matches'
      : table(alertRows(page.items), [
          'id',
          'severity',
          'status',
          'rule',
          'subject',
          'group',
          'fired',
          'resolved',
          'acknowledged',
          'silencedUntil',
          'summary',
        ]) + (page.nextCursor ? `\n(more: --limit ${Math.min(500, (intOpt('limit', opts.limit) ?? 100) * 2)})` : ''),
  );
  return 0;
}

async function acknowledge({ opts, args, api }: CliContext): Promise<number> {
  if (!args[0]) throw new UsageError('alerts ack needs an alert id (wrtfleet alerts ls shows them)');
  const note = opts.note?.trim();
  const alert = await api.call<Api.Alert>('POST', `/v1/alerts/${encodeURIComponent(args[0])}/acknowledge`, {
    ...(note ? { note } : {}),
  });
  print(
    opts,
    alert,
    () =>
      `acknowledged ${alert.id}: ${alert.rule.name} on ${alert.subject.kind} ${alert.subject.name} (${alert.acknowledged?.by ?? '?'})`,
  );
  return 0;
}

async function silence({ opts, api }: CliContext): Promise<number> {
  // The flags are checked before the router is looked up: a usage error needs no controller.
  silenceBody(opts, undefined, Date.now());
  const routerId = opts.router ? await resolveRouterId(api, opts.router) : undefined;
  const created = await api.call<Api.Silence>('POST', '/v1/silences', silenceBody(opts, routerId, Date.now()));
  print(opts, created, () =>
    [`silence ${created.id}`, `  matches ${describeSilenceMatch(created)}`, `  until ${created.endsAt}`].join('\n'),
  );
  return 0;
}

async function silences({ opts, api }: CliContext): Promise<number> {
  const r = await api.get<Api.SilenceList>('/v1/silences');
  print(opts, r, () =>
    r.items.length === 0
      ? 'no silence is running or waiting'
      : table(
          r.items.map((s) => ({
            ...s,
            matches: describeSilenceMatch(s),
            state: s.active ? 'running' : 'waiting',
          })),
          ['id', 'state', 'matches', 'startsAt', 'endsAt', 'createdBy', 'comment'],
        ),
  );
  return 0;
}

async function unsilence({ opts, args, api }: CliContext): Promise<number> {
  if (!args[0]) throw new UsageError('alerts unsilence needs a silence id (wrtfleet alerts silences shows them)');
  await api.raw('DELETE', `/v1/silences/${encodeURIComponent(args[0])}`);
  print(opts, { ended: args[0] }, () => `ended silence ${args[0]}`);
  return 0;
}

async function rules({ opts, api }: CliContext): Promise<number> {
  const r = await api.get<Api.AlertRuleList>('/v1/alert-rules');
  print(opts, r, () =>
    table(
      r.items.map((rule) => ({
        ...rule,
        for: seconds(rule.forSeconds),
        groupBy: rule.groupBy,
        enabled: rule.enabled ? 'yes' : 'no',
      })),
      ['name', 'kind', 'severity', 'for', 'groupBy', 'enabled', 'firing'],
    ),
  );
  return 0;
}

export async function alertsVerb(ctx: CliContext, command: string | undefined): Promise<number> {
  switch (command) {
    case 'ls':
      return list(ctx);
    case 'ack':
      return acknowledge(ctx);
    case 'silence':
      return silence(ctx);
    case 'silences':
      return silences(ctx);
    case 'unsilence':
      return unsilence(ctx);
    case 'rules':
      return rules(ctx);
    default:
      throw unknownCommand('alerts', command);
  }
}
