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

function entry(raw: Record<string, unknown>, where: string): InventoryEntry {
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
  if (!s('passwordFile') && !s('keyFile'))
    throw new InventoryError(`${where} (${host}): give passwordFile or keyFile (secrets never go inline)`);
  if (raw.password !== undefined || raw.privateKey !== undefined)
    throw new InventoryError(`${where} (${host}): inline password/privateKey refused; use passwordFile or keyFile`);
  const tags = Array.isArray(raw.tags) ? raw.tags.map(String) : (s('tags') ?? '').split(/[;\s]+/).filter(Boolean);
  const install = raw.install === true || s('install') === 'true';
  return {
    host,
    port,
    user: s('user'),
    passwordFile: s('passwordFile'),
    keyFile: s('keyFile'),
    fingerprint: s('fingerprint') ?? s('hostKeyFingerprint'),
    tags,
    placement,
    install,
    identity: s('identity'),
    name: s('name'),
  };
}

export function parseInventory(path: string, text: string): InventoryEntry[] {
  if (/\.csv$/i.test(path)) {
    const lines = text.split(/\r?\n/).filter((l) => l.trim() && !l.trimStart().startsWith('#'));
    if (lines.length < 2)
      throw new InventoryError(`${path}: a CSV inventory needs a header row and at least one router`);
    const header = splitCsvLine(lines[0]!);
    return lines.slice(1).map((l, i) => {
      const cells = splitCsvLine(l);
      return entry(Object.fromEntries(header.map((h, j) => [h, cells[j]])), `${path}:${i + 2}`);
    });
  }
  const doc = parseYaml(text) as unknown;
  const obj = (doc ?? {}) as { defaults?: Record<string, unknown>; routers?: unknown[] };
  const list = Array.isArray(doc) ? doc : obj.routers;
  if (!Array.isArray(list) || list.length === 0)
    throw new InventoryError(`${path}: expected a list of routers (or { defaults, routers })`);
  return list.map((r, i) =>
    entry({ ...(Array.isArray(doc) ? {} : obj.defaults), ...(r as Record<string, unknown>) }, `${path}: routers[${i}]`),
  );
}
