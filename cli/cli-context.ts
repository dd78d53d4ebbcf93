/**
 * What every verb group of the CLI shares: the parsed command line, the API client, and the
 * helpers that turn flags into requests and documents into output.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { ApiClient } from './api-client.js';

/** A mistake on the command line: exit code 2 and the usage text. */
export class UsageError extends Error {}

/** Every flag of every verb: node:util parses them once, each verb reads the ones it takes. */
export const CLI_OPTIONS = {
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
  ids: { type: 'string', multiple: true },
  release: { type: 'string', multiple: true },
  tags: { type: 'string', multiple: true },
  // Spellings of 0.1, folded into the ones above with a warning (OLD_FLAGS).
  id: { type: 'string', multiple: true },
  openwrt: { type: 'string', multiple: true },
  tag: { type: 'string', multiple: true },
  canary: { type: 'string' },
  batch: { type: 'string' },
  'max-failure-ratio': { type: 'string' },
  soak: { type: 'string' },
  promote: { type: 'string' },
  'skip-refused': { type: 'boolean', default: false },
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
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  'max-in-flight': { type: 'string' },
  'expires-in': { type: 'string' },
  role: { type: 'string' },
  // Firmware images and firmware rollouts (no defaults: absent means the API's default).
  firmware: { type: 'string' },
  'keep-config': { type: 'boolean' },
  'reset-config': { type: 'boolean' },
  'allow-downgrade': { type: 'boolean' },
  window: { type: 'string' },
  'step-timeout': { type: 'string' },
  'confirm-timeout': { type: 'string' },
  // Notification channels (--from is shared with audit's, there an instant, here a sender).
  webhook: { type: 'string' },
  slack: { type: 'string' },
  email: { type: 'string' },
  smtp: { type: 'string' },
  'smtp-user': { type: 'string' },
  'smtp-password-stdin': { type: 'boolean', default: false },
  starttls: { type: 'boolean', default: false },
  tls: { type: 'boolean', default: false },
  'no-tls': { type: 'boolean', default: false },
  'min-severity': { type: 'string' },
  rule: { type: 'string', multiple: true },
  // Alerts and silences (--rule is the channels' one, repeatable; alerts take one).
  severity: { type: 'string' },
  note: { type: 'string' },
  for: { type: 'string' },
  comment: { type: 'string' },
  // The fleet as code: plan, apply, export.
  prune: { type: 'boolean' },
  source: { type: 'string' },
  plan: { type: 'string' },
} as const;

export type CliOptions = ReturnType<typeof parseCommandLine>['values'];

/** Flags of 0.1 and their spelling today, the API's field names; the old ones go in 0.3. */
const OLD_FLAGS = { id: 'ids', openwrt: 'release', tag: 'tags' } as const;

/** Tells, on stderr, that an old spelling was used and what replaces it. */
export function warnOldSpelling(old: string, now: string): void {
  console.error(`wrtfleet: "${old}" is now spelled "${now}"; the old spelling is accepted until 0.3`);
}

export function parseCommandLine(args?: string[]) {
  const parsed = parseArgs({ args, allowPositionals: true, options: CLI_OPTIONS });
  for (const [old, now] of Object.entries(OLD_FLAGS) as [
    keyof typeof OLD_FLAGS,
    (typeof OLD_FLAGS)[keyof typeof OLD_FLAGS],
  ][]) {
    const given = parsed.values[old];
    if (!given) continue;
    warnOldSpelling(`--${old}`, `--${now}`);
    parsed.values[now] = [...(parsed.values[now] ?? []), ...given];
    delete parsed.values[old];
  }
  return parsed;
}

/** One verb's view of the run: its flags, its positional arguments after the verb, the API. */
export interface CliContext {
  opts: CliOptions;
  /** The positionals after `<group> <command>`. */
  args: string[];
  api: ApiClient;
}

export function intOpt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, got "${value}"`);
  return n;
}

export function query(params: Record<string, string | number | undefined | string[]>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, String(one));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The selector from --all, --ids, --soc, --release, --tags (each repeatable). */
export function selectorFromOpts(opts: CliOptions) {
  const selector: Record<string, unknown> = {};
  if (opts.all) selector.all = true;
  if (opts.ids) selector.ids = opts.ids;
  if (opts.soc) selector.soc = opts.soc;
  if (opts.release) selector.release = opts.release;
  if (opts.tags) selector.tags = opts.tags;
  if (Object.keys(selector).length === 0)
    throw new UsageError('give a selector: --all, or --ids/--soc/--release/--tags');
  return selector;
}

export async function resolveToken(opts: CliOptions): Promise<string | undefined> {
  if (opts.token) return opts.token;
  if (process.env.WRTFLEET_TOKEN) return process.env.WRTFLEET_TOKEN;
  try {
    return (await readFile(process.env.WRTFLEET_TOKEN_FILE ?? 'data/admin-token', 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** The API's document with --json, else the human rendering. */
export function print(opts: CliOptions, value: unknown, human: () => string): void {
  console.log(opts.json ? JSON.stringify(value, null, 2) : human());
}

/** A verb group given a command it does not have. */
export function unknownCommand(group: string, command: string | undefined): UsageError {
  return new UsageError(`unknown command "${`${group} ${command ?? ''}`.trim()}"`);
}
