/** `wrtfleet onboard`: one router from flags, or many from an inventory file. */
import { readFile } from 'node:fs/promises';
import type * as Api from '../api-client.js';
import type { ApiClient } from '../api-client.js';
import { intOpt, print, UsageError, type CliContext, type CliOptions } from '../cli-context.js';
import { progressBar, table } from '../output.js';
import { ProgressLine } from '../progress-line.js';
import { parseInventory, type InventoryEntry } from '../../core/onboarding/inventory.js';
import { parsePlacement } from '../../core/onboarding/placement.js';

/** Follows a job's server-sent events; a progress bar on a terminal, lines otherwise. Returns the end event. */
async function followJob(api: ApiClient, opts: CliOptions, id: string, show: boolean): Promise<Api.JobEnd> {
  const progress = new ProgressLine(opts.json, show);
  for await (const { event, data } of api.events(`/v1/jobs/${id}/events`)) {
    if (event === 'end') {
      progress.done();
      return data as Api.JobEnd;
    }
    if (!show) continue;
    const d = data as Api.JobProgress;
    if (opts.json) console.log(JSON.stringify(d));
    progress.update(`${progressBar(d.percent, 100)}  ${d.step ?? ''}  ${d.message ?? ''}`);
  }
  return { state: 'unknown', message: 'the event stream ended early', error: null };
}

/** One router to onboard, from the flags or an inventory line; the API checks the placement's spelling. */
async function onboardBody(e: Omit<InventoryEntry, 'placement'> & { placement?: string }) {
  if (!e.passwordFile === !e.keyFile)
    throw new UsageError(`${e.host}: give exactly one of --password-file or --key-file`);
  const secret = await readFile((e.passwordFile ?? e.keyFile)!, 'utf8');
  return {
    host: e.host,
    ...(e.port ? { port: e.port } : {}),
    ...(e.user ? { user: e.user } : {}),
    ...(e.passwordFile ? { password: secret.replace(/\r?\n$/, '') } : { privateKey: secret }),
    ...(e.fingerprint ? { hostKeyFingerprint: e.fingerprint } : {}),
    ...(e.tags.length ? { tags: e.tags } : {}),
    ...(e.placement ? { placement: e.placement } : {}),
    ...(e.install ? { install: true } : {}),
    ...(e.identity ? { identity: e.identity } : {}),
    ...(e.name ? { name: e.name } : {}),
  };
}

export async function onboardVerb({ opts, api }: CliContext): Promise<number> {
  if (!opts.inventory) {
    if (!opts.host) throw new UsageError('onboard needs --host (or --inventory FILE)');
    const body = await onboardBody({
      host: opts.host,
      port: intOpt('port', opts.port),
      user: opts.user,
      passwordFile: opts['password-file'],
      keyFile: opts['key-file'],
      fingerprint: opts.fingerprint,
      tags: opts.tags ?? [],
      // The deprecated on-router goes as on_router; a value naming no placement goes as given, for the API to refuse.
      placement: opts.placement === undefined ? undefined : (parsePlacement(opts.placement) ?? opts.placement),
      install: opts.install,
    });
    const { jobId } = await api.call<{ jobId: string }>('POST', '/v1/onboarding', body);
    if (!opts.json) console.error(`onboarding job ${jobId}`);
    const end = await followJob(api, opts, jobId, true);
    print(opts, end, () => `${opts.host}: ${end.state}: ${end.error ?? end.message}`);
    return end.state === 'succeeded' ? 0 : 3;
  }
  const entries = parseInventory(opts.inventory, await readFile(opts.inventory, 'utf8'));
  const concurrency = intOpt('concurrency', opts.concurrency) ?? 10;
  if (concurrency < 1) throw new UsageError('--concurrency must be at least 1');
  const results: { host: string; state: string; reason: string | null; jobId: string | null }[] = [];
  let next = 0;
  const started = Date.now();
  // Bounded: at most `concurrency` jobs in flight, each followed to its end before the next starts.
  const worker = async () => {
    while (next < entries.length) {
      const e = entries[next++]!;
      try {
        const { jobId } = await api.call<{ jobId: string }>('POST', '/v1/onboarding', await onboardBody(e));
        const end = await followJob(api, opts, jobId, false);
        results.push({
          host: e.host,
          state: end.state,
          reason: end.state === 'succeeded' ? end.message : (end.error ?? end.message),
          jobId,
        });
      } catch (err) {
        results.push({ host: e.host, state: 'failed', reason: (err as Error).message, jobId: null });
      }
      if (!opts.json) console.error(`[${results.length}/${entries.length}] ${e.host}: ${results.at(-1)!.state}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, entries.length) }, worker));
  const ok = results.filter((r) => r.state === 'succeeded').length;
  const summary = {
    total: entries.length,
    succeeded: ok,
    failed: entries.length - ok,
    seconds: (Date.now() - started) / 1000,
    results,
  };
  print(
    opts,
    summary,
    () =>
      `${table(results, ['host', 'state', 'reason'])}\n${ok}/${entries.length} onboarded in ${summary.seconds.toFixed(1)} s`,
  );
  return ok === entries.length ? 0 : 3;
}
