/** `wrtfleet rollouts create|ls|status|watch|pause|resume|cancel|promote`: profile and firmware rollouts. */
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
import { FIRMWARE_ROLLOUT_FLAGS, firmwareOptionsFromOpts } from '../firmware-flags.js';
import { progressBar, table } from '../output.js';
import { ProgressLine } from '../progress-line.js';
import { resolveImage } from './firmware.js';

/** What a rollout carries, in a few words: "home@3", or "firmware FILE (OpenWrt 24.10.4)". */
function carries(r: Api.RolloutView): string {
  if (r.kind === 'profile') return `${r.profile}@${r.revision}`;
  return `firmware ${r.firmware?.fileName} (OpenWrt ${r.firmware?.release})`;
}

/** The counts that tell a rollout's kind apart: a firmware rollout upgrades, a profile one applies. */
function countsText(r: Api.RolloutView): string {
  const c = r.counts;
  return r.kind === 'firmware'
    ? `upgraded ${c.upgraded} failed ${c.failed} unconfirmed ${c.unconfirmed} skipped ${c.skipped}`
    : `applied ${c.applied} failed ${c.failed} rolled back ${c.rolled_back} skipped ${c.skipped}`;
}

/** A firmware rollout's image and options, as `rollouts status` shows them. */
function firmwareText(r: Api.RolloutView): string {
  const f = r.firmware;
  if (!f) return '';
  const o = f.options;
  const window = o.window ? `, window ${o.window.start}-${o.window.end} ${o.window.timeZone ?? 'UTC'}` : '';
  return (
    `image ${f.image ?? '(removed)'} ${f.fileName}, OpenWrt ${f.release} (${f.revision}) for ${f.target ?? '-'}\n` +
    `${o.keepConfig ? 'keeping' : 'resetting'} the configuration${o.allowDowngrade ? ', downgrades allowed' : ''}${window}, ` +
    `step timeout ${o.stepTimeoutSeconds} s, confirm timeout ${o.confirmTimeoutSeconds} s\n`
  );
}

/** Every target of a rollout, a page at a time. */
async function allTargets(api: ApiClient, id: string): Promise<Api.RolloutTargetPage['items']> {
  const items: Api.RolloutTargetPage['items'] = [];
  let cursor: string | null = null;
  do {
    const page: Api.RolloutTargetPage = await api.get(
      `/v1/rollouts/${id}/targets?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** Each router of a firmware rollout: its state, the upgrade step it reported last and what it said. */
async function firmwareTargetsTable(api: ApiClient, id: string): Promise<string> {
  const targets = await allTargets(api, id);
  return table(
    targets.map((t) => ({
      ...t,
      step: t.firmwareStep,
      bytes: t.bytesDone,
      detail: t.error ?? t.stepDetail,
    })),
    ['name', 'batch', 'state', 'step', 'bytes', 'flashedAt', 'detail'],
  );
}

/**
 * The rollout's subject from --profile [--revision] [--skip-refused] or --firmware IMAGE and its
 * options: exactly one of the two, and no flag of the other kind.
 */
function checkSubjectFlags(opts: CliOptions): 'profile' | 'firmware' {
  if (opts.profile && opts.firmware) throw new UsageError('give --profile or --firmware, not both');
  if (!opts.profile && !opts.firmware) throw new UsageError('rollouts create needs --profile NAME or --firmware IMAGE');
  if (opts.firmware) {
    if (opts.revision !== undefined || opts['skip-refused'])
      throw new UsageError(
        '--revision and --skip-refused are for --profile; a firmware rollout leaves out the routers the image does not fit',
      );
    return 'firmware';
  }
  const misplaced = FIRMWARE_ROLLOUT_FLAGS.filter((flag) => opts[flag] !== undefined);
  if (misplaced.length) throw new UsageError(`${misplaced.map((f) => `--${f}`).join(', ')}: only with --firmware`);
  return 'profile';
}

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
    progress.update(
      `${progressBar(last.finished, last.total)}  ${last.state}${soakLeft(last)}  batch ${last.currentBatch + 1}/${last.batchCount}  ${countsText(last)}${last.pauseReason ? `  (${last.pauseReason})` : ''}`,
    );
  }
  progress.done();
  if (!last) return 1;
  if (!opts.json) {
    console.log(`rollout ${id}: ${last.state}`);
    if (last.kind === 'firmware') console.log(await firmwareTargetsTable(api, id));
  }
  return last.state === 'completed' ? 0 : 3;
}

export async function rolloutVerb({ opts, args, api }: CliContext, command: string | undefined): Promise<number> {
  switch (command) {
    case 'create': {
      const kind = checkSubjectFlags(opts);
      const selector = selectorFromOpts(opts);
      const firmwareOptions = kind === 'firmware' ? firmwareOptionsFromOpts(opts) : {};
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
      const subject =
        kind === 'firmware'
          ? { firmware: { image: (await resolveImage(api, opts.firmware!)).sha256, ...firmwareOptions } }
          : {
              profile: opts.profile,
              revision: intOpt('revision', opts.revision),
              ...(opts['skip-refused'] ? { skipRefused: true } : {}),
            };
      const r = await api.call<Api.RolloutView>('POST', '/v1/rollouts', {
        ...subject,
        selector,
        ...(Object.keys(strategy).length ? { strategy } : {}),
        ...(opts['start-at'] ? { startAt: opts['start-at'] } : {}),
      });
      const refusedBy = r.kind === 'firmware' ? 'the image does not fit them' : 'the plan refuses them';
      print(
        opts,
        r,
        () =>
          `rollout ${r.id}: ${carries(r)} to ${r.total - r.leftOut} routers in ${r.batchCount} batches (${r.state})${r.leftOut ? `; ${r.leftOut} left out, ${refusedBy}` : ''}`,
      );
      return opts.watch ? watchRollout(api, opts, r.id) : 0;
    }
    case 'ls': {
      const r = await api.get<{ items: Api.RolloutView[] }>('/v1/rollouts');
      print(opts, r, () =>
        table(
          r.items.map((x) => ({ ...x, carries: carries(x), progress: `${x.finished}/${x.total}` })),
          ['id', 'kind', 'carries', 'state', 'progress', 'createdAt'],
        ),
      );
      return 0;
    }
    case 'status': {
      if (!args[0]) throw new UsageError('rollouts status needs a rollout id');
      const r = await api.get<Api.RolloutView>(`/v1/rollouts/${args[0]}`);
      // A firmware rollout's routers go through steps worth seeing one by one.
      const targets = r.kind === 'firmware' && !opts.json ? `\n${await firmwareTargetsTable(api, r.id)}` : '';
      print(
        opts,
        r,
        () =>
          `${r.id} ${carries(r)} ${r.state}${soakLeft(r)}${r.pauseReason ? ` (${r.pauseReason})` : ''}\n${firmwareText(r)}${progressBar(r.finished, r.total)}\n${table([r.counts], Object.keys(r.counts))}${targets}`,
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
