import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import type { IntentKind } from './intent-documents.js';
import { managedView, type Managed } from './managed-view.js';

export type { Managed } from './managed-view.js';

/** A resource of one of the intent kinds as the controller holds it today. */
export interface LiveResource {
  kind: IntentKind;
  name: string;
  id: string;
  spec: Record<string, unknown>;
  /** A profile's latest revision; the others' version column. */
  version: number;
  /** Who wrote the current version (profiles: the latest revision's author); null where not kept. */
  writtenBy: string | null;
  managed: Managed | null;
}

export const resourceKey = (kind: IntentKind, name: string) => `${kind}/${name}`;

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Every resource of the four kinds (archived profiles left out) with what manages it. A fleet
 * has profiles and policies by the tens or hundreds, not by the router: read whole.
 */
export async function readLiveIntent(db: Db): Promise<Map<string, LiveResource>> {
  const [profiles, policies, assignments, firmware, managed] = await Promise.all([
    db.$queryRaw<{ id: string; name: string; version: number; spec: unknown; createdBy: string }[]>`
      SELECT p.id, p.name, p."latestRevision" AS version, r.spec, r."createdBy"
        FROM "Profile" p JOIN "ProfileRevision" r ON r."profileId" = p.id AND r.number = p."latestRevision"
       WHERE p."archivedAt" IS NULL`,
    db.rolloutPolicy.findMany(),
    db.fleetAssignment.findMany(),
    db.firmwarePolicy.findMany(),
    db.managedResource.findMany(),
  ]);
  const managedBy = new Map(managed.map((m) => [resourceKey(m.kind as IntentKind, m.name), m]));
  const live = new Map<string, LiveResource>();
  const add = (
    kind: IntentKind,
    r: { id: string; name: string; version: number; spec: unknown },
    by: string | null,
  ) => {
    const key = resourceKey(kind, r.name);
    const m = managedBy.get(key);
    live.set(key, {
      kind,
      name: r.name,
      id: r.id,
      spec: r.spec as Record<string, unknown>,
      version: r.version,
      writtenBy: by,
      managed: m ? managedView(m) : null,
    });
  };
  for (const p of profiles) add('Profile', p, p.createdBy);
  for (const p of policies) add('RolloutPolicy', p, null);
  for (const a of assignments) add('Assignment', a, null);
  for (const f of firmware) add('FirmwarePolicy', f, null);
  return live;
}

/** The version of every live resource: what a saved plan names, and apply compares. */
export function stateOf(live: Map<string, LiveResource>): Record<string, number> {
  return Object.fromEntries([...live.entries()].map(([k, r]) => [k, r.version]).sort(([a], [b]) => (a! < b! ? -1 : 1)));
}

/** What moved between two states, in words: empty when they are the same. */
export function stateDifferences(planned: Record<string, number>, now: Record<string, number>): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(planned), ...Object.keys(now)])) {
    const a = planned[key];
    const b = now[key];
    if (a === b) continue;
    if (a === undefined) out.push(`${key} was created since the plan (now at version ${b})`);
    else if (b === undefined) out.push(`${key} was removed since the plan (was at version ${a})`);
    else out.push(`${key} is at version ${b}, the plan was made at ${a}`);
  }
  return out.sort();
}
