/** `wrtfleet rollouts create|ls|status|watch|pause|resume|cancel|promote`. */
import type * as Api from '../api-client.js';
import type { ApiClient } from '../api-client.js';
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

/** " (42 s left)" while a rollout soaks. */
function soakLeft(r: Api.RolloutView): string {
  if (r.state !== 'soaking' || !r.soakUntil) return '';
  return ` (${Math.max(0, Math.ceil((Date.parse(r.soakUntil) - Date.now()) / 1000))} s left)`;
}

/** Follows a rollout's events to its end: 0 when it completed, 3 otherwise (a check failed). */
async function watchRollout(api: ApiClient, opts: CliOptions, id: string): Promise<number> {
  let last: Api.RolloutView | undefined;
  const progress = new ProgressLine(opts.json);
  for await (const { event, data } of api.events(`/v1/rollouts/${id}/events`)) {
    if (event !== 'progress') continue;
    last = data as Api.RolloutView;
    if (opts.json) console.log(JSON.stringify(last));
    const c = last.counts;
    progress.update(
      `${progressBar(last.finished, last.total)}  ${last.state}${soakLeft(last)}  batch ${last.currentBatch + 1}/${last.batchCount}  applied ${c.applied} failed ${c.failed} rolled back ${c.rolled_back} skipped ${c.skipped}${last.pauseReason ? `  (${last.pauseReason})` : ''}`,
    );
  }
  progress.done();
  if (!last) return 1;
  if (!opts.json) console.log(`rollout ${id}: ${last.state}`);
  return last.state === 'completed' ? 0 : 3;
}

export async function rolloutVerb({ opts, args, api }: CliContext, command: string | undefined): Promise<number> {
  switch (command) {
    case 'create': {
      if (!opts.profile) throw new UsageError('rollouts create needs --profile');
      const strategy: Record<string, number | string> = {};
      if (opts.canary !== undefined) strategy.canary = intOpt('canary', opts.canary)!;
      if (opts.batch !== undefined) strategy.batchSize = intOpt('batch', opts.batch)!;
      if (opts['max-failure-ratio'] !== undefined) strategy.maxFailureRatio = Number(opts['max-failure-ratio']);
      if (opts.soak !== undefined) strategy.soakSeconds = intOpt('soak', opts.soak)!;
      if (opts.promote !== undefined) {
        if (opts.promote !== 'auto' && opts.promote !== 'manual')
          throw new UsageError(`--promote must be auto or manual, got "${opts.promote}"`);
        strategy.promote = opts.promote;
      }
      const r = await api.call<Api.RolloutView>('POST', '/v1/rollouts', {
        profile: opts.profile,
        revision: intOpt('revision', opts.revision),
        selector: selectorFromOpts(opts),
        ...(Object.keys(strategy).length ? { strategy } : {}),
        ...(opts['start-at'] ? { startAt: opts['start-at'] } : {}),
        ...(opts['skip-refused'] ? { skipRefused: true } : {}),
      });
      print(
        opts,
        r,
        () =>
          `rollout ${r.id}: ${r.profile}@${r.revision} to ${r.total - r.leftOut} routers in ${r.batchCount} batches (${r.state})${r.leftOut ? `; ${r.leftOut} left out, the plan refuses them` : ''}`,
      );
      return opts.watch ? watchRollout(api, opts, r.id) : 0;
    }
    case 'ls': {
      const r = await api.get<{ items: Api.RolloutView[] }>('/v1/rollouts');
      print(opts, r, () =>
        table(
          r.items.map((x) => ({ ...x, progress: `${x.finished}/${x.total}` })),
          ['id', 'profile', 'revision', 'state', 'progress', 'createdAt'],
        ),
      );
      return 0;
    }
    case 'status': {
      if (!args[0]) throw new UsageError('rollouts status needs a rollout id');
      const r = await api.get<Api.RolloutView>(`/v1/rollouts/${args[0]}`);
      print(
        opts,
        r,
        () =>
          `${r.id} ${r.profile}@${r.revision} ${r.state}${soakLeft(r)}${r.pauseReason ? ` (${r.pauseReason})` : ''}\n${progressBar(r.finished, r.total)}\n${table([r.counts], Object.keys(r.counts))}`,
      );
      return 0;
    }
    case 'watch': {
      if (!args[0]) throw new UsageError('rollouts watch needs a rollout id');
      return watchRollout(api, opts, args[0]);
    }
    case 'abort':
      warnOldSpelling('rollouts abort', 'rollouts cancel');
      return rolloutVerb({ opts, args, api }, 'cancel');
    case 'pause':
    case 'resume':
    case 'cancel':
    case 'promote': {
      if (!args[0]) throw new UsageError(`rollouts ${command} needs a rollout id`);
      const r = await api.call<Api.RolloutView>('POST', `/v1/rollouts/${args[0]}/${command}`);
      print(opts, r, () => `rollout ${r.id}: ${r.state}`);
      return 0;
    }
    default:
      throw unknownCommand('rollouts', command);
  }
}
