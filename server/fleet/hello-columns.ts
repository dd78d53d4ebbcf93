import type { Hello } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import {
  Endianness,
  Placement,
  type Capabilities,
  type CapabilitySet,
} from '../../proto/gen/wrtfleet/agent/v1/router.js';

/** What a Hello says of its router, in the shapes the Router row stores. */

export function endianName(e: Endianness): string | null {
  if (e === Endianness.ENDIANNESS_LITTLE) return 'little';
  if (e === Endianness.ENDIANNESS_BIG) return 'big';
  return null;
}

export function placementName(p: Placement | undefined): 'on_router' | 'proxy' | 'unknown' {
  if (p === Placement.PLACEMENT_ON_ROUTER) return 'on_router';
  if (p === Placement.PLACEMENT_PROXY) return 'proxy';
  return 'unknown';
}

function capabilitySetJson(set: CapabilitySet | undefined) {
  if (!set) return null;
  const out: Record<string, { value: boolean; reason: string }> = {};
  for (const key of ['hardwareOffload', 'softwareOffload', 'ebpf', 'tcx'] as const) {
    const c = set[key];
    if (c) out[key] = { value: c.value, reason: c.reason };
  }
  return out;
}

export function capabilitiesJson(c: Capabilities | undefined) {
  return { predicted: capabilitySetJson(c?.predicted), probed: capabilitySetJson(c?.probed) };
}

/** Empty strings in proto3 mean "not known"; the database says so with NULL. */
const orNull = (s: string | undefined) => (s ? s : null);

/** The router's columns a Hello sets (facts, capabilities and live state as the agent reports them). */
export function helloColumns(hello: Hello, now: Date) {
  const facts = hello.facts;
  return {
    status: 'online' as const,
    lastSeenAt: now,
    connectedAt: now,
    agentVersion: orNull(hello.agent?.version),
    placement: placementName(hello.agent?.placement),
    soc: orNull(facts?.soc),
    arch: orNull(facts?.arch),
    endian: facts ? endianName(facts.endian) : null,
    kernel: orNull(facts?.kernel),
    openwrtRelease: orNull(facts?.openwrt?.release),
    openwrtTarget: orNull(facts?.openwrt?.target),
    model: orNull(facts?.modelName) ?? orNull(facts?.modelId),
    facts: facts ? (JSON.parse(JSON.stringify(factsDocument(hello))) as object) : undefined,
    capabilities: capabilitiesJson(hello.capabilities),
    liveState: hello.live ? (JSON.parse(JSON.stringify(hello.live)) as object) : undefined,
    bootId: orNull(hello.bootId),
  };
}

/**
 * The fact document stored per router, in the agent's RouterFacts shape (agent/facts/types.ts)
 * so the server can hand it to the same capability and plan functions the agent uses.
 */
export function factsDocument(hello: Hello) {
  const f = hello.facts!;
  // What agent/hello.ts puts beside the typed fields; the Struct on the wire carries it unchecked.
  const extra = (f.extra ?? {}) as {
    packageFacts?: Record<string, unknown>;
    defaultRoutes?: unknown[];
    [field: string]: unknown;
  };
  const { packageFacts, ...rest } = extra;
  return {
    ...rest,
    soc: orNull(f.soc),
    arch: orNull(f.arch),
    endian: endianName(f.endian),
    kernel: orNull(f.kernel),
    openwrt: f.openwrt?.release
      ? {
          distribution: 'OpenWrt',
          source: 'agent',
          release: f.openwrt.release,
          target: orNull(f.openwrt.target),
          revision: orNull(f.openwrt.revision),
          arch: orNull(f.openwrt.arch),
        }
      : null,
    model: { id: orNull(f.modelId), name: orNull(f.modelName) },
    boardName: orNull(f.boardName),
    cpu: { model: orNull(f.cpuModel), cores: f.cpuCores || null },
    network: { wan: f.wanDevices, lan: f.lanDevices, defaultRoutes: rest.defaultRoutes ?? [] },
    packages: { ...(packageFacts ?? {}), installed: f.packages },
    unknown: f.unknown,
  };
}
