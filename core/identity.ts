import type { RouterFacts } from './facts/index.js';
import type { RouterHost } from './host/router-host.js';

/**
 * A router's identity must survive reboots, agent reinstalls and a move between the
 * on-router and proxy placements, so it is built from the hardware: the board name (what
 * model it is) and the MAC address of its WAN device (which one it is). Without a readable
 * MAC (a fixture, a container) it falls back to the hostname; operators can always pass
 * an explicit identity instead.
 */
export async function deriveRouterIdentity(host: RouterHost, facts: RouterFacts): Promise<string> {
  const board = (facts.boardName ?? facts.model.id ?? facts.os?.id ?? 'linux').replace(/[^A-Za-z0-9._,+-]/g, '-');
  for (const dev of facts.network.wan) {
    if (!/^[A-Za-z0-9._@-]{1,15}$/.test(dev)) continue;
    const mac = (await host.readFile(`/sys/class/net/${dev}/address`))?.trim();
    if (mac && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(mac) && mac !== '00:00:00:00:00:00')
      return `${board}:${mac.toLowerCase()}`;
  }
  const hostname = (await host.readFile('/proc/sys/kernel/hostname'))?.trim();
  return `${board}:${hostname && /^[A-Za-z0-9.-]{1,63}$/.test(hostname) ? hostname : 'unnamed'}`;
}
