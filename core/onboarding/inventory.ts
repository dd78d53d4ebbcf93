/**
 * Inventory files for bulk onboarding (`wrtfleet onboard --inventory FILE`): CSV with a
 * header row, or YAML (a list, or `{ defaults, routers }`). Secrets are never inline: each
 * router names a `passwordFile` or `keyFile` (read by the CLI), so an inventory can be
 * committed or shared without leaking credentials.
 *
 *   host,port,user,keyFile,fingerprint,tags,placement,install
 *   10.0.0.1,22,root,/etc/wrtfleet/id_ed25519,SHA256:...,site:lyon;group:a,proxy,true
 */
import { parse as parseYaml } from 'yaml';
import { parsePlacement, type Placement } from './placement.js';

export interface InventoryEntry {
  host: string;
  port?: number;
  user?: string;
  passwordFile?: string;
  keyFile?: string;
  fingerprint?: string;
  tags: string[];
  /** As sent to the API: the deprecated `on-router` is read as `on_router`. */
  placement?: Placement;
  install?: boolean;
  identity?: string;
  name?: string;
}

export class InventoryError extends Error {}

function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        // A doubled quote inside quotes is one literal quote.
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

/** How the routers' SSH secrets arrive: files the CLI reads, or one credential sent with an upload. */
export type InventorySecrets = 'files' | 'upload';

function entry(raw: Record<string, unknown>, where: string, secrets: InventorySecrets): InventoryEntry {
  const s = (k: string) => (raw[k] === undefined || raw[k] === null || raw[k] === '' ? undefined : String(raw[k]));
  const host = s('host');
  if (!host) throw new InventoryError(`${where}: host is required`);
  const port = s('port') === undefined ? undefined : Number(s('port'));
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535))
    throw new InventoryError(`${where}: port must be 1-65535`);
  const asked = s('placement');
  const placement = asked === undefined ? undefined : parsePlacement(asked);
  if (asked !== undefined && !placement)
    throw new InventoryError(`${where}: placement must be auto, on_router or proxy`);
  if (secrets === 'files' && !s('passwordFile') && !s('keyFile'))
    throw new InventoryError(`${where} (${host}): give passwordFile or keyFile (secrets never go inline)`);
  if (raw.password !== undefined || raw.privateKey !== undefined)
    throw new InventoryError(
      `${where} (${host}): inline password/privateKey refused; ${secrets === 'files' ? 'use passwordFile or keyFile' : 'the credential goes with the upload, not in the file'}`,
    );
  const install = s('install');
  if (install !== undefined && install !== 'true' && install !== 'false')
    throw new InventoryError(`${where} (${host}): install must be true or false`);
  const tags = Array.isArray(raw.tags) ? raw.tags.map(String) : (s('tags') ?? '').split(/[;\s]+/).filter(Boolean);
  return {
    host,
    port,
    user: s('user'),
    passwordFile: s('passwordFile'),
    keyFile: s('keyFile'),
    fingerprint: s('fingerprint') ?? s('hostKeyFingerprint'),
    tags,
    placement,
    install: install === 'true',
    identity: s('identity'),
    name: s('name'),
  };
}

/** One bad row of an inventory: where it is (file:line, or routers[i]) and what is wrong. */
export interface InventoryProblem {
  row: string;
  message: string;
}

export interface InventoryReading {
  /** The good rows, each with where it is in the file. */
  entries: { row: string; entry: InventoryEntry }[];
  /** Every bad row, not only the first: an upload names them all and starts nothing. */
  problems: InventoryProblem[];
}

export type InventoryFormat = 'csv' | 'yaml';

/** The format a file name says, or null when it says neither (an upload refuses it). */
export function inventoryFormat(path: string): InventoryFormat | null {
  if (/\.csv$/i.test(path)) return 'csv';
  if (/\.ya?ml$/i.test(path)) return 'yaml';
  return null;
}

function readRows(
  path: string,
  text: string,
  format: InventoryFormat,
): { rows: { raw: Record<string, unknown>; where: string }[] } {
  if (format === 'csv') {
    // Line numbers are the file's own, counting blank and comment lines, so an editor finds them.
    const lines = text
      .split(/\r?\n/)
      .map((l, i) => ({ l, n: i + 1 }))
      .filter(({ l }) => l.trim() && !l.trimStart().startsWith('#'));
    if (lines.length < 2)
      throw new InventoryError(`${path}: a CSV inventory needs a header row and at least one router`);
    const header = splitCsvLine(lines[0]!.l);
    if (!header.includes('host')) throw new InventoryError(`${path}:${lines[0]!.n}: the header row has no host column`);
    return {
      rows: lines.slice(1).map(({ l, n }) => {
        const cells = splitCsvLine(l);
        return { raw: Object.fromEntries(header.map((h, j) => [h, cells[j]])), where: `${path}:${n}` };
      }),
    };
  }
  let doc: unknown;
  try {
    doc = parseYaml(text) as unknown;
  } catch (err) {
    throw new InventoryError(`${path}: not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const obj = (doc ?? {}) as { defaults?: Record<string, unknown>; routers?: unknown[] };
  const list = Array.isArray(doc) ? doc : obj.routers;
  if (!Array.isArray(list) || list.length === 0)
    throw new InventoryError(`${path}: expected a list of routers (or { defaults, routers })`);
  return {
    rows: list.map((r, i) => ({
      raw:
        r !== null && typeof r === 'object' && !Array.isArray(r)
          ? { ...(Array.isArray(doc) ? {} : obj.defaults), ...(r as Record<string, unknown>) }
          : {},
      where: `${path}: routers[${i}]`,
    })),
  };
}

/**
 * Reads every row, collecting the bad ones. A file-level problem (not CSV or YAML, no
 * header, no list) throws InventoryError.
 */
export function readInventory(
  path: string,
  text: string,
  options: { format?: InventoryFormat; secrets?: InventorySecrets } = {},
): InventoryReading {
  const format = options.format ?? inventoryFormat(path) ?? 'yaml';
  const { rows } = readRows(path, text, format);
  const entries: InventoryReading['entries'] = [];
  const problems: InventoryProblem[] = [];
  for (const { raw, where } of rows) {
    try {
      entries.push({ row: where, entry: entry(raw, where, options.secrets ?? 'files') });
    } catch (err) {
      if (!(err instanceof InventoryError)) throw err;
      problems.push({ row: where, message: err.message });
    }
  }
  return { entries, problems };
}

/** The CLI's reading: secrets from files, the first bad row throws. */
export function parseInventory(path: string, text: string): InventoryEntry[] {
  const { entries, problems } = readInventory(path, text);
  if (problems.length) throw new InventoryError(problems[0]!.message);
  return entries.map((e) => e.entry);
}
