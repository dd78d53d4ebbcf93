/**
 * `wrtfleet`: the controller's REST API for automation and operators.
 *
 * Connection: --url (or WRTFLEET_URL, default http://127.0.0.1:8080) and --token (or
 * WRTFLEET_TOKEN, or the file named by WRTFLEET_TOKEN_FILE, default ./data/admin-token).
 * Output: tables by default, --json for scripts. Exit codes: 0 success, 1 the API refused
 * or failed, 2 usage error, 3 a check failed (audit verify broken, rollout not completed).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { ApiCallError, ApiClient } from './api-client.js';
import type * as Api from './api-client.js';
import { progressBar, table } from './output.js';
import { parseInventory, type InventoryEntry } from '../onboarding/inventory.js';
import { parsePlacement } from '../onboarding/placement.js';

const USAGE = `usage: wrtfleet [--url URL] [--token TOKEN] [--json] <command>

  routers ls [--soc SOC] [--status online|offline|never_seen] [--limit N]
  routers show ID
  routers tag ID TAG...
  profiles ls
  profiles show NAME [--revision N]
  profiles apply -f FILE.yaml|json [--name NAME]     create or add a revision (no-op if unchanged)
  plan preview --router ID [--profile NAME [--revision N]]
  plan preview --profile NAME [--revision N] SELECTOR
  rollout create --profile NAME [--revision N] SELECTOR [--canary N] [--batch M] [--max-failure-ratio R] [--start-at ISO] [--watch]
  rollout ls
  rollout status ID
  rollout watch ID                                  live progress bar until it ends
  rollout pause|resume|abort ID
  audit ls [--router ID] [--profile NAME] [--rollout ID] [--actor A] [--from ISO] [--to ISO] [--limit N]
  audit verify
  audit export [-o FILE] [filters as for ls]
  onboard --host H [--port P] [--user U] (--password-file F | --key-file F) [--fingerprint SHA256:..] [--tag T]... [--placement auto|on_router|proxy] [--install]
  onboard --inventory FILE.csv|yaml [--concurrency N]   many routers; prints a summary

SELECTOR: --all | --id ID... --soc SOC... --openwrt VER... --tag TAG...`;

class UsageError extends Error {}

const { values: opts, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        soc: { type: 'string', multiple: true },
        status: { type: 'string' },
        limit: { type: 'string' },
        file: { type: 'string', short: 'f' },
        name: { type: 'string' },
        revision: { type: 'string' },
        router: { type: 'string' },
        profile: { type: 'string' },
        rollout: { type: 'string' },
        all: { type: 'boolean', default: false },
        id: { type: 'string', multiple: true },
        openwrt: { type: 'string', multiple: true },
        tag: { type: 'string', multiple: true },
        canary: { type: 'string' },
        batch: { type: 'string' },
        'max-failure-ratio': { type: 'string' },
        'start-at': { type: 'string' },
        watch: { type: 'boolean', default: false },
        actor: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        output: { type: 'string', short: 'o' },
        host: { type: 'string' },
        port: { type: 'string' },
        user: { type: 'string' },
        'password-file': { type: 'string' },
        'key-file': { type: 'string' },
        fingerprint: { type: 'string' },
        placement: { type: 'string' },
        install: { type: 'boolean', default: false },
        inventory: { type: 'string' },
        concurrency: { type: 'string' },
      },
    });
  } catch (err) {
    console.error(`wrtfleet: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
})();

function intOpt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, got "${value}"`);
  return n;
}

function query(params: Record<string, string | number | undefined | string[]>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, String(one));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

function selectorFromOpts() {
  const selector: Record<string, unknown> = {};
  if (opts.all) selector.all = true;
  if (opts.id) selector.ids = opts.id;
  if (opts.soc) selector.soc = opts.soc;
  if (opts.openwrt) selector.openwrt = opts.openwrt;
  if (opts.tag) selector.tags = opts.tag;
  if (Object.keys(selector).length === 0) throw new UsageError('give a selector: --all, or --id/--soc/--openwrt/--tag');
  return selector;
}

async function resolveToken(): Promise<string | undefined> {
  if (opts.token) return opts.token;
  if (process.env.WRTFLEET_TOKEN) return process.env.WRTFLEET_TOKEN;
  try {
    return (await readFile(process.env.WRTFLEET_TOKEN_FILE ?? 'data/admin-token', 'utf8')).trim();
  } catch {
    return undefined;
  }
}

const print = (value: unknown, human: () => string) =>
  console.log(opts.json ? JSON.stringify(value, null, 2) : human());

async function watchRollout(api: ApiClient, id: string): Promise<number> {
  let last: Api.RolloutView | undefined;
  const tty = process.stderr.isTTY && !opts.json;
  for await (const { event, data } of api.events(`/v1/rollouts/${id}/events`)) {
    if (event !== 'progress') continue;
    last = data as Api.RolloutView;
    if (opts.json) console.log(JSON.stringify(last));
    else {
      const c = last.counts;
      const line = `${progressBar(last.finished, last.total)}  ${last.state}  batch ${last.currentBatch + 1}/${last.batchCount}  applied ${c.applied} failed ${c.failed} rolled back ${c.rolled_back} skipped ${c.skipped}${last.pauseReason ? `  (${last.pauseReason})` : ''}`;
      if (tty) process.stderr.write(`\r\x1b[2K${line}`);
      else console.error(line);
    }
  }
  if (tty) process.stderr.write('\n');
  if (!last) return 1;
  if (!opts.json) console.log(`rollout ${id}: ${last.state}`);
  return last.state === 'completed' ? 0 : 3;
}

/** Follows a job's server-sent events; a progress bar on a terminal, lines otherwise. Returns the end event. */
async function followJob(api: ApiClient, id: string, show: boolean): Promise<Api.JobEnd> {
  const tty = show && process.stderr.isTTY && !opts.json;
  for await (const { event, data } of api.events(`/v1/jobs/${id}/events`)) {
    if (event === 'end') {
      if (tty) process.stderr.write('\n');
      return data as Api.JobEnd;
    }
    if (!show) continue;
    const d = data as Api.JobProgress;
    const line = `${progressBar(d.percent, 100)}  ${d.step ?? ''}  ${d.message ?? ''}`;
    if (opts.json) console.log(JSON.stringify(d));
    else if (tty) process.stderr.write(`\r\x1b[2K${line}`);
    else console.error(line);
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

async function onboard(api: ApiClient): Promise<number> {
  if (!opts.inventory) {
    if (!opts.host) throw new UsageError('onboard needs --host (or --inventory FILE)');
    const body = await onboardBody({
      host: opts.host,
      port: intOpt('port', opts.port),
      user: opts.user,
      passwordFile: opts['password-file'],
      keyFile: opts['key-file'],
      fingerprint: opts.fingerprint,
      tags: opts.tag ?? [],
      // The deprecated on-router goes as on_router; a value naming no placement goes as given, for the API to refuse.
      placement: opts.placement === undefined ? undefined : (parsePlacement(opts.placement) ?? opts.placement),
      install: opts.install,
    });
    const { jobId } = await api.call<{ jobId: string }>('POST', '/v1/onboarding', body);
    if (!opts.json) console.error(`onboarding job ${jobId}`);
    const end = await followJob(api, jobId, true);
    print(end, () => `${opts.host}: ${end.state}: ${end.error ?? end.message}`);
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
        const end = await followJob(api, jobId, false);
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
    summary,
    () =>
      `${table(results, ['host', 'state', 'reason'])}\n${ok}/${entries.length} onboarded in ${summary.seconds.toFixed(1)} s`,
  );
  return ok === entries.length ? 0 : 3;
}

async function main(): Promise<number> {
  if (opts.help || positionals.length === 0) {
    console.log(USAGE);
    return opts.help ? 0 : 2;
  }
  const api = new ApiClient(
    (opts.url ?? process.env.WRTFLEET_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, ''),
    await resolveToken(),
  );
  const [group, command, ...args] = positionals;
  const key = `${group} ${command ?? ''}`.trim();
  if (group === 'onboard') return onboard(api);

  switch (key) {
    case 'routers ls': {
      const page = await api.get<Api.RouterPage>(
        `/v1/routers${query({ soc: opts.soc?.[0], status: opts.status, limit: intOpt('limit', opts.limit) ?? 100 })}`,
      );
      print(page, () =>
        table(
          page.items.map((r) => ({
            ...r,
            openwrt: r.openwrt?.version,
            applied: r.appliedRevision ? `${r.appliedRevision.profile}@${r.appliedRevision.revision}` : null,
          })),
          ['id', 'name', 'status', 'soc', 'arch', 'kernel', 'openwrt', 'applied'],
        ),
      );
      return 0;
    }
    case 'routers show': {
      if (!args[0]) throw new UsageError('routers show needs a router id');
      const r = await api.get<unknown>(`/v1/routers/${encodeURIComponent(args[0])}`);
      print(r, () => JSON.stringify(r, null, 2));
      return 0;
    }
    case 'routers tag': {
      if (!args[0]) throw new UsageError('routers tag needs a router id and tags');
      const r = await api.call<{ id: string; tags: string[] }>(
        'PUT',
        `/v1/routers/${encodeURIComponent(args[0])}/tags`,
        {
          tags: args.slice(1),
        },
      );
      print(r, () => `${r.id}: ${r.tags.join(' ')}`);
      return 0;
    }
    case 'profiles ls': {
      const page = await api.get<Api.Rows>('/v1/profiles?limit=500');
      print(page, () => table(page.items, ['name', 'latestRevision', 'updatedAt']));
      return 0;
    }
    case 'profiles show': {
      if (!args[0]) throw new UsageError('profiles show needs a profile name');
      const rev = intOpt('revision', opts.revision);
      const r = await api.get<unknown>(rev ? `/v1/profiles/${args[0]}/revisions/${rev}` : `/v1/profiles/${args[0]}`);
      print(r, () => JSON.stringify(r, null, 2));
      return 0;
    }
    case 'profiles apply': {
      if (!opts.file) throw new UsageError('profiles apply needs -f FILE');
      const text = await readFile(opts.file, 'utf8');
      let doc: unknown;
      try {
        doc = opts.file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
      } catch (err) {
        throw new UsageError(
          `${opts.file} is not valid ${opts.file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
        );
      }
      // A file is either { name, spec } or a bare spec named by --name.
      const name = opts.name ?? (doc && typeof doc === 'object' && 'name' in doc ? doc.name : undefined);
      const spec = doc && typeof doc === 'object' && 'spec' in doc ? doc.spec : doc;
      if (!name) throw new UsageError('the profile needs a name: a top-level "name" in the file, or --name');
      let base = 0;
      try {
        base = (await api.get<{ revision: number }>(`/v1/profiles/${encodeURIComponent(String(name))}`)).revision;
      } catch (err) {
        if (!(err instanceof ApiCallError && err.status === 404)) throw err;
      }
      const r = await api.call<Api.SaveResult>('PUT', `/v1/profiles/${encodeURIComponent(String(name))}`, {
        spec,
        baseRevision: base,
      });
      print(r, () =>
        r.changed
          ? `profile ${name}: revision ${r.revision}${r.created ? ' (created)' : ''}`
          : `profile ${name}: unchanged at revision ${r.revision}`,
      );
      return 0;
    }
    case 'plan preview': {
      if (opts.router) {
        const r = await api.get<Api.RouterPlanPreview>(
          `/v1/routers/${encodeURIComponent(opts.router)}/plan${query({ profile: opts.profile, revision: intOpt('revision', opts.revision) })}`,
        );
        print(r, () => {
          if (!r.plan) return `${r.name}: no profile assigned`;
          const p = r.plan;
          return [
            `${r.name}: ${r.effective.profile}@${r.effective.revision} -> ${p.satisfiable ? 'satisfiable' : 'REFUSED'} (plan ${p.planHash.slice(0, 12)})`,
            `  datapath: ${p.datapath.mode}${p.datapath.attach ? ` via ${p.datapath.attach}` : ''}  programs: ${p.datapath.programs.map((x) => x.name).join(', ') || '-'}`,
            `  offload: ${p.offload.mode}`,
            ...p.refusals.map((x) => `  refused: ${x.reason}`),
            ...p.decisions.map((d) => `  - ${d.topic}: ${d.choice} (${d.reason})`),
            `  changes: ${r.changes.length === 0 ? 'none' : r.changes.map((c) => c.path).join(', ')}`,
          ].join('\n');
        });
        return 0;
      }
      if (!opts.profile) throw new UsageError('plan preview needs --router ID, or --profile NAME with a selector');
      const r = await api.call<Api.FleetPlanPreview>('POST', '/v1/plan-preview', {
        profile: opts.profile,
        revision: intOpt('revision', opts.revision),
        selector: selectorFromOpts(),
      });
      print(r, () =>
        [
          table(
            r.items.map((i) => ({
              router: i.name,
              satisfiable: i.plan.satisfiable,
              datapath: i.plan.datapath.mode,
              offload: i.plan.offload.mode,
              changes: i.changes.length,
            })),
            ['router', 'satisfiable', 'datapath', 'offload', 'changes'],
          ),
          `${r.matched} routers matched; ${JSON.stringify(r.summary)}`,
        ].join('\n'),
      );
      return 0;
    }
    case 'rollout create': {
      if (!opts.profile) throw new UsageError('rollout create needs --profile');
      const strategy: Record<string, number> = {};
      if (opts.canary !== undefined) strategy.canary = intOpt('canary', opts.canary)!;
      if (opts.batch !== undefined) strategy.batchSize = intOpt('batch', opts.batch)!;
      if (opts['max-failure-ratio'] !== undefined) strategy.maxFailureRatio = Number(opts['max-failure-ratio']);
      const r = await api.call<Api.RolloutView>('POST', '/v1/rollouts', {
        profile: opts.profile,
        revision: intOpt('revision', opts.revision),
        selector: selectorFromOpts(),
        ...(Object.keys(strategy).length ? { strategy } : {}),
        ...(opts['start-at'] ? { startAt: opts['start-at'] } : {}),
      });
      print(
        r,
        () =>
          `rollout ${r.id}: ${r.profile}@${r.revision} to ${r.total} routers in ${r.batchCount} batches (${r.state})`,
      );
      return opts.watch ? watchRollout(api, r.id) : 0;
    }
    case 'rollout ls': {
      const r = await api.get<{ items: Api.RolloutView[] }>('/v1/rollouts');
      print(r, () =>
        table(
          r.items.map((x) => ({ ...x, progress: `${x.finished}/${x.total}` })),
          ['id', 'profile', 'revision', 'state', 'progress', 'createdAt'],
        ),
      );
      return 0;
    }
    case 'rollout status': {
      if (!args[0]) throw new UsageError('rollout status needs a rollout id');
      const r = await api.get<Api.RolloutView>(`/v1/rollouts/${args[0]}`);
      print(
        r,
        () =>
          `${r.id} ${r.profile}@${r.revision} ${r.state}${r.pauseReason ? ` (${r.pauseReason})` : ''}\n${progressBar(r.finished, r.total)}\n${table([r.counts], Object.keys(r.counts))}`,
      );
      return 0;
    }
    case 'rollout watch': {
      if (!args[0]) throw new UsageError('rollout watch needs a rollout id');
      return watchRollout(api, args[0]);
    }
    case 'rollout pause':
    case 'rollout resume':
    case 'rollout abort': {
      if (!args[0]) throw new UsageError(`${key} needs a rollout id`);
      const r = await api.call<Api.RolloutView>('POST', `/v1/rollouts/${args[0]}/${command}`);
      print(r, () => `rollout ${r.id}: ${r.state}`);
      return 0;
    }
    case 'audit ls': {
      const r = await api.get<Api.Rows>(
        `/v1/audit${query({ router: opts.router, profile: opts.profile, rollout: opts.rollout, actor: opts.actor, from: opts.from, to: opts.to, limit: intOpt('limit', opts.limit) })}`,
      );
      print(r, () => table(r.items, ['seq', 'at', 'actor', 'action', 'targetType', 'targetId']));
      return 0;
    }
    case 'audit verify': {
      const r = await api.get<Api.AuditVerdict>('/v1/audit/verify');
      print(r, () =>
        r.ok
          ? `audit chain intact: ${r.checked} events`
          : [
              r.firstBroken
                ? `audit chain BROKEN at event ${r.firstBroken.seq} (${r.firstBroken.id}): ${r.firstBroken.reason}`
                : `audit chain intact: ${r.checked} events`,
              ...(r.missingCount > 0
                ? [
                    `${r.missingCount} without their creating event:`,
                    ...r.missing.map((m) => `  ${m.kind} ${m.label ?? m.id}`),
                  ]
                : []),
            ].join('\n'),
      );
      return r.ok ? 0 : 3;
    }
    case 'audit export': {
      const text = await api.lines(
        `/v1/audit/export${query({ router: opts.router, profile: opts.profile, rollout: opts.rollout, actor: opts.actor, from: opts.from, to: opts.to })}`,
      );
      if (opts.output) {
        await writeFile(opts.output, text);
        console.error(`wrote ${text ? text.trimEnd().split('\n').length : 0} events to ${opts.output}`);
      } else process.stdout.write(text);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${key}"`);
  }
}

try {
  process.exitCode = await main();
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`wrtfleet: ${err.message}\n${USAGE}`);
    process.exitCode = 2;
  } else if (err instanceof ApiCallError) {
    if (opts.json)
      console.error(
        JSON.stringify({ error: err.code, status: err.status, message: err.message, details: err.details }),
      );
    else
      console.error(
        `wrtfleet: ${err.message}${err.details?.length ? `\n${err.details.map((d) => `  ${d.path}: ${d.message}`).join('\n')}` : ''}`,
      );
    process.exitCode = 1;
  } else throw err;
}
