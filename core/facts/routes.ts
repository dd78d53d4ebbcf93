import type { DefaultRoute } from './types.js';
import { isRecord } from './source.js';

/**
 * IPv4 default routes, whose devices are the live WAN (`pppoe-wan` on PPPoE, `wan` or
 * `eth0.2` on DHCP) - board.json only names the physical port. Three spellings, in order of
 * preference: `ip -j route show default` (iproute2 with JSON), `ip -4 route show default`
 * (text, also busybox ip), and /proc/net/route (always there, needs no binary).
 */

/** Devices that never carry a WAN even when a route points at them. */
const NOT_WAN = new Set(['lo']);

function keep(routes: DefaultRoute[]): DefaultRoute[] {
  const seen = new Set<string>();
  return routes.filter((route) => {
    if (NOT_WAN.has(route.dev) || seen.has(route.dev)) return false;
    seen.add(route.dev);
    return true;
  });
}

/** `ip -j route show default`: [{"dst":"default","gateway":"...","dev":"wan",...}]; null if not that. */
export function parseIpJsonRoutes(json: unknown): DefaultRoute[] | null {
  if (!Array.isArray(json)) return null;
  const routes: DefaultRoute[] = [];
  for (const entry of json) {
    if (!isRecord(entry) || typeof entry['dev'] !== 'string') continue;
    if (entry['dst'] !== undefined && entry['dst'] !== 'default' && entry['dst'] !== '0.0.0.0/0') continue;
    routes.push({
      dev: entry['dev'],
      gateway: typeof entry['gateway'] === 'string' ? entry['gateway'] : null,
      source: 'ip -j route',
    });
  }
  return keep(routes);
}

/** `default via 192.0.2.1 dev wan proto static src ...` / `default dev pppoe-wan scope link`. */
export function parseIpTextRoutes(text: string): DefaultRoute[] | null {
  const routes: DefaultRoute[] = [];
  let sawRouteLine = false;
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] !== 'default' && words[0] !== '0.0.0.0/0') continue;
    sawRouteLine = true;
    const dev = words[words.indexOf('dev') + 1];
    const via = words.indexOf('via');
    if (words.indexOf('dev') < 0 || !dev) continue;
    routes.push({ dev, gateway: via >= 0 ? (words[via + 1] ?? null) : null, source: 'ip route' });
  }
  return sawRouteLine ? keep(routes) : null;
}

/**
 * /proc/net/route: `Iface Destination Gateway Flags ... Mask ...`, addresses in hex. The
 * gateway is printed in the CPU's byte order, so it is left out rather than decoded wrongly
 * on a big-endian router. Null when the header is not there (garbage).
 */
export function parseProcNetRoute(text: string): DefaultRoute[] | null {
  const lines = text.split('\n');
  const header = lines[0]?.trim().split(/\s+/) ?? [];
  const iface = header.indexOf('Iface');
  const destination = header.indexOf('Destination');
  const mask = header.indexOf('Mask');
  if (iface < 0 || destination < 0 || mask < 0) return null;
  const routes: DefaultRoute[] = [];
  for (const line of lines.slice(1)) {
    const fields = line.trim().split(/\s+/);
    const dev = fields[iface];
    if (!dev || fields[destination] !== '00000000' || fields[mask] !== '00000000') continue;
    routes.push({ dev, gateway: null, source: '/proc/net/route' });
  }
  return keep(routes);
}
