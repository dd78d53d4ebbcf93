import { readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { ReconnectPolicy } from './controller-link.js';
import { FixtureHost } from './host/fixture-host.js';
import { RouterAgent } from './router-agent.js';

/** Where the captured router trees live: ../shared/fixtures/routers beside the repo, or $WRTFLEET_FIXTURES. */
export function defaultFixturesDir(repoRoot = resolve(import.meta.dirname, '..')): string {
  return process.env.WRTFLEET_FIXTURES ?? resolve(repoRoot, '../shared/fixtures/routers');
}

export async function fixtureModels(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries.filter((e) => e.isDirectory()).map((e) => join(dir, e.name)).sort();
}

export interface SimulatedFleetOptions {
  controller: string;
  fixtureRoots: string[];
  perModel: number;
  reconnect?: Partial<ReconnectPolicy>;
}

/**
 * A fleet of simulated routers (MIPS and ARM routers cannot exist on this machine): each
 * is a real agent with its own gRPC stream, reading a captured router file tree instead
 * of a device. Identities are the board name plus a synthetic serial, so they are stable
 * across demo restarts.
 */
export function startSimulatedFleet(options: SimulatedFleetOptions): RouterAgent[] {
  const agents: RouterAgent[] = [];
  for (const root of options.fixtureRoots) {
    const model = basename(root);
    for (let i = 1; i <= options.perModel; i++) {
      const serial = String(i).padStart(3, '0');
      const agent = new RouterAgent({
        host: new FixtureHost(root),
        controller: options.controller,
        placement: 'proxy',
        identity: `sim.${model}:${serial}`,
        name: `${model}-${serial}`,
        reconnect: options.reconnect,
      });
      agent.start();
      agents.push(agent);
    }
  }
  return agents;
}

export async function stopFleet(agents: RouterAgent[]): Promise<void> {
  await Promise.all(agents.map((a) => a.stop()));
}
