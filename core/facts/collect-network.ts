/**
 * The router's network: WAN devices from the live default routes plus board.json, LAN devices
 * from board.json (parsing of the route listings is in routes.ts).
 */
import type { RouterHost } from '../host/router-host.js';
import type { BoardJson } from './board-json.js';
import { unavailable, type FactRecord } from './fact-record.js';
import { parseIpJsonRoutes, parseIpTextRoutes, parseProcNetRoute } from './routes.js';
import { parseJson, readTextFile, runCommand, type SourceRead } from './source.js';
import type { DefaultRoute, RouterFacts } from './types.js';

export async function readNetwork(
  host: RouterHost,
  record: FactRecord,
  boardJson: BoardJson | null,
  boardJsonRead: SourceRead<string>,
): Promise<RouterFacts['network']> {
  const routes = await readDefaultRoutes(host);
  const boardWan = boardJson?.wan ?? [];
  const wan = [...new Set([...(routes.value ?? []).map((route) => route.dev), ...boardWan])];
  const lan = boardJson?.lan ?? [];
  if (routes.value) record.evidence('network.defaultRoutes', routes.value[0]?.source ?? routes.source);
  else record.unknown('network.defaultRoutes', routes.reason);
  const boardWhy = boardJson
    ? '/etc/board.json names no %s devices'
    : `${unavailable(boardJsonRead)}; no board.json to name %s devices`;
  if (wan.length > 0)
    record.evidence(
      'network.wan',
      [routes.value?.length ? 'default routes' : null, boardWan.length ? '/etc/board.json' : null]
        .filter(Boolean)
        .join(' + '),
    );
  else record.unknown('network.wan', `${boardWhy.replace('%s', 'WAN')}; no IPv4 default route`);
  if (lan.length > 0) record.evidence('network.lan', '/etc/board.json');
  else record.unknown('network.lan', boardWhy.replace('%s', 'LAN'));
  return { wan, lan, defaultRoutes: routes.value ?? [] };
}

async function readDefaultRoutes(
  host: RouterHost,
): Promise<{ value: DefaultRoute[] | null; source: string; reason: string }> {
  const reasons: string[] = [];
  const json = await runCommand(host, ['ip', '-j', 'route', 'show', 'default']);
  if (json.ok) {
    const parsedJson = parseJson(json.source, json.value);
    const routes = parsedJson.ok ? parseIpJsonRoutes(parsedJson.value) : null;
    if (routes) return { value: routes, source: json.source, reason: '' };
    reasons.push(`\`${json.source}\` output unusable`);
  } else reasons.push(json.reason);
  const text = await runCommand(host, ['ip', '-4', 'route', 'show', 'default']);
  if (text.ok) {
    const routes = parseIpTextRoutes(text.value);
    if (routes) return { value: routes, source: text.source, reason: '' };
    reasons.push(`\`${text.source}\` output unusable`);
  } else reasons.push(text.reason);
  const proc = await readTextFile(host, '/proc/net/route');
  if (proc.ok) {
    const routes = parseProcNetRoute(proc.value);
    if (routes) return { value: routes, source: proc.source, reason: '' };
    reasons.push(`${proc.source} is garbage`);
  } else reasons.push(proc.reason);
  return { value: null, source: '', reason: reasons.join('; ') };
}
