/**
 * `wrtfleet commands <kind> (--ids ID... | SELECTOR) [--watch]`, and `commands ls|status|watch|cancel`.
 * Kinds are spelled as the API spells them (`reprobe`, `check_drift`); the kebab-case verbs of
 * 0.1 (`re-probe`, `check-drift`) still work, with a warning, until 0.3.
 */
import type * as Api from '../api-client.js';
import type { ApiClient } from '../api-client.js';
import { API_ENUMS, type ApiEnum } from '../../web-admin/src/api/api-enums.generated.js';
import {
  intOpt,
  print,
  selectorFromOpts,
  UsageError,
  unknownCommand,
  warnOldSpelling,
  type CliContext,
  type CliOptions,
} from '../cli-context.js';
import { progressBar, table } from '../output.js';
import { ProgressLine } from '../progress-line.js';

type CommandKind = ApiEnum<'CommandKind'>;
const COMMAND_KINDS = API_ENUMS.CommandKind;
const KINDS = new Set<string>(COMMAND_KINDS);
/** 0.1's verbs: kebab-case, and re-probe/re-apply with a hyphen. */
const OLD_VERBS = new Map<string, CommandKind>([
  ...COMMAND_KINDS.map((k): [string, CommandKind] => [k.replaceAll('_', '-'), k]),
  ['re-probe', 'reprobe'],
  ['re-apply', 'reapply'],
  ['re_probe', 'reprobe'],
  ['re_apply', 'reapply'],
]);

function kindOf(verb: string | undefined): CommandKind | undefined {
  if (verb === undefined) return undefined;
  if (KINDS.has(verb)) return verb as CommandKind;
  const kind = OLD_VERBS.get(verb);
  if (kind) warnOldSpelling(`commands ${verb}`, `commands ${kind}`);
  return kind;
}

/** States after which a router has its outcome (offline is one only once the command has ended). */
const UNHAPPY = ['failed', 'timed_out', 'cancelled', 'refused', 'offline'] as const;

function countsLine(job: Api.CommandView): string {
  const c = job.counts;
  const parts = [`succeeded ${c.succeeded}`, `failed ${c.failed}`, `offline ${c.offline}`, `timed out ${c.timed_out}`];
  if (c.refused) parts.push(`refused ${c.refused}`);
  if (c.cancelled) parts.push(`cancelled ${c.cancelled}`);
  return parts.join(' ');
}

/**
 * Follows a command's events to its end, then prints the routers without success and why.
 * Exit code 0 when every router succeeded, 3 otherwise (as a rollout that did not complete).
 */
async function watchCommand(api: ApiClient, opts: CliOptions, id: string): Promise<number> {
  let last: Api.CommandView | undefined;
  const progress = new ProgressLine(opts.json);
  for await (const { event, data } of api.events(`/v1/commands/${id}/events`)) {
    if (event === 'target' && opts.json) console.log(JSON.stringify({ target: data }));
    if (event !== 'progress') continue;
    last = data as Api.CommandView;
    if (opts.json) console.log(JSON.stringify(last));
    progress.update(`${progressBar(last.finished, last.total)}  ${last.state}  ${countsLine(last)}`);
  }
  progress.done();
  last = await api.get<Api.CommandView>(`/v1/commands/${id}`);
  const allSucceeded = last.counts.succeeded === last.total;
  if (!opts.json) {
    console.log(`command ${id} (${last.kind}): ${last.state}, ${countsLine(last)}`);
    if (!allSucceeded) {
      const rows: Record<string, unknown>[] = [];
      for (const state of UNHAPPY) {
        const page = await api.get<Api.CommandTargetPage>(`/v1/commands/${id}/targets?state=${state}&limit=100`);
        rows.push(...page.items.map((t) => ({ router: t.name, state: t.state, reason: t.reason ?? '' })));
      }
      if (rows.length) console.log(table(rows, ['router', 'state', 'reason']));
    }
  }
  return allSucceeded ? 0 : 3;
}

function idArg(args: string[], what: string): string {
  if (!args[0]) throw new UsageError(`commands ${what} needs a command id`);
  return encodeURIComponent(args[0]);
}

export async function commandVerb({ opts, args, api }: CliContext, command: string | undefined): Promise<number> {
  const kind = kindOf(command);
  if (kind) {
    const options = {
      ...(opts.timeout !== undefined ? { timeoutSeconds: intOpt('timeout', opts.timeout) } : {}),
      ...(opts.deadline !== undefined ? { deadlineSeconds: intOpt('deadline', opts.deadline) } : {}),
    };
    const ids = opts.ids ?? [];
    // One router by id takes the router's own route, so its refusal (409) names the reason.
    const single = ids.length === 1 && !opts.all && !opts.soc && !opts.release && !opts.tags;
    const job = single
      ? await api.call<Api.CommandView>('POST', `/v1/routers/${encodeURIComponent(ids[0]!)}/commands`, {
          kind,
          ...options,
        })
      : await api.call<Api.CommandView>('POST', '/v1/commands', {
          kind,
          selector: selectorFromOpts(opts),
          ...options,
          ...(opts['max-in-flight'] !== undefined
            ? { maxInFlight: intOpt('max-in-flight', opts['max-in-flight']) }
            : {}),
        });
    print(opts, job, () => `command ${job.id}: ${command} to ${job.total} routers (${job.state})`);
    return opts.watch ? watchCommand(api, opts, job.id) : 0;
  }
  switch (command) {
    case 'ls': {
      const r = await api.get<{ items: Api.CommandView[] }>('/v1/commands');
      print(opts, r, () =>
        table(
          r.items.map((j) => ({ ...j, progress: `${j.finished}/${j.total}`, succeeded: j.counts.succeeded })),
          ['id', 'kind', 'state', 'progress', 'succeeded', 'createdBy', 'createdAt'],
        ),
      );
      return 0;
    }
    case 'status': {
      const id = idArg(args, 'status');
      const job = await api.get<Api.CommandView>(`/v1/commands/${id}`);
      const targets = await api.get<Api.CommandTargetPage>(`/v1/commands/${id}/targets?limit=500`);
      print(
        opts,
        { ...job, targets: targets.items },
        () =>
          `${job.id} ${job.kind} ${job.state}\n${progressBar(job.finished, job.total)}  ${countsLine(job)}\n` +
          table(
            targets.items.map((t) => ({ router: t.name, state: t.state, detail: t.reason ?? firstLine(t.output) })),
            ['router', 'state', 'detail'],
          ),
      );
      return 0;
    }
    case 'watch':
      return watchCommand(api, opts, idArg(args, 'watch'));
    case 'cancel': {
      const job = await api.call<Api.CommandView>('POST', `/v1/commands/${idArg(args, 'cancel')}/cancel`);
      print(opts, job, () => `command ${job.id}: ${job.state}`);
      return 0;
    }
    default:
      throw unknownCommand('commands', command);
  }
}

function firstLine(text: string | null): string {
  return text?.split('\n', 1)[0] ?? '';
}
