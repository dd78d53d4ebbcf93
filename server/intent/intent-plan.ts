/**
 * The plan of the fleet as code: what applying a directory of documents would change, computed
 * here, on the controller, for every client (CLI, CI, the API) alike. Terraform's plan is the
 * model: each resource's action and spec diff, plus, for the Assignments and FirmwarePolicies,
 * which routers the rollouts would reach and why, with the plan preview's own verdicts.
 */
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { jsonDiff, type JsonChange } from '../audit/json-diff.js';
import { DEFAULT_FIRMWARE_OPTIONS, type FirmwareOptions } from '../firmware/firmware-options.js';
import type { Selector } from '../fleet/selector.js';
import {
  InvalidDocuments,
  type AssignmentSpec,
  type DocumentError,
  type FirmwarePolicySpec,
  type IntentDocument,
  type IntentKind,
  type RolloutPolicySpec,
} from './intent-documents.js';
import { readLiveIntent, resourceKey, stateOf, type LiveResource, type Managed } from './live-intent.js';
import { assignmentReach, firmwareReach, type RouterReach, type TargetRevision } from './router-reach.js';

/**
 * `create`, `update` (a profile: a new revision), `adopt` (same spec, now managed from the files,
 * or managed again after a change outside them was undone), `delete` (with prune), `unchanged`,
 * and `orphan`: managed from files that no longer name it, kept because prune was not asked.
 */
export type ResourceAction = 'create' | 'update' | 'adopt' | 'delete' | 'unchanged' | 'orphan';
const CHANGING: ReadonlySet<ResourceAction> = new Set(['create', 'update', 'adopt', 'delete']);

/** Routers shown by name per resource; the counts cover all of them. */
export const ROUTERS_SHOWN = 100;

export interface Reach {
  /** What the routers are brought to: "home@4", or a firmware release. */
  target: string;
  matched: number;
  counts: Record<RouterReach['verdict'], number>;
  routers: RouterReach[];
  /** The rollout the apply would start (the routers to change or to give the revision), null for none. */
  rollout: { policy: string | null; routers: number } | null;
}

export interface ResourcePlan {
  kind: IntentKind;
  name: string;
  /** Its document's index in the request; null for one the files no longer name. */
  document: number | null;
  action: ResourceAction;
  /** The version now (null: none) and after the apply. */
  version: { live: number | null; planned: number | null };
  diff: JsonChange[];
  managed: Managed | null;
  /** Set when the resource was changed outside the files since they last wrote it. */
  drift: string | null;
  reach: Reach | null;
}

export interface IntentPlan {
  /** Resource actions and rollouts the apply would carry out; 0: nothing to do. */
  changes: number;
  /** The version of every resource the plan read: a saved plan is refused once one moved. */
  state: Record<string, number>;
  prune: boolean;
  resources: ResourcePlan[];
}

/** What the apply needs besides the plan: the documents and live resources, by key. */
export interface PlanWorkings {
  plan: IntentPlan;
  live: Map<string, LiveResource>;
  documents: Map<string, IntentDocument>;
  /** Each reaching resource's routers in full (the plan shows only the first ROUTERS_SHOWN). */
  reach: Map<string, RouterReach[]>;
  /** The revision each assignment brings its routers to. */
  targets: Map<string, TargetRevision>;
  firmwareImages: Map<string, { id: string; sha256: string }>;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

function resourceAction(doc: IntentDocument | undefined, live: LiveResource | undefined, prune: boolean) {
  if (!doc) return prune ? 'delete' : 'orphan';
  if (!live) return 'create';
  if (!same(doc.spec, live.spec)) return 'update';
  return !live.managed || live.managed.version !== live.version ? 'adopt' : 'unchanged';
}

function driftOf(live: LiveResource | undefined): string | null {
  if (!live?.managed || live.managed.version === live.version) return null;
  const what = live.kind === 'Profile' ? `revision ${live.version}` : `version ${live.version}`;
  const by = live.writtenBy ? ` by ${live.writtenBy}` : '';
  return `changed outside the files: ${what}${by}, after the files wrote version ${live.managed.version}`;
}

/**
 * The plan for these (validated) documents against the fleet now. Throws InvalidDocuments for
 * what only the controller can judge: a reference to nothing, a pinned revision that does not
 * exist, a router two assignments both claim, a removal something still needs.
 */
export async function planIntent(db: PrismaClient, docs: IntentDocument[], prune: boolean): Promise<PlanWorkings> {
  const live = await readLiveIntent(db);
  const documents = new Map(docs.map((d) => [resourceKey(d.kind, d.name), d]));
  const errors: DocumentError[] = [];
  const resources: ResourcePlan[] = [];

  const keys = new Set([...documents.keys(), ...[...live.entries()].filter(([, r]) => r.managed).map(([k]) => k)]);
  for (const key of keys) {
    const doc = documents.get(key);
    const now = live.get(key);
    const kind = (doc?.kind ?? now!.kind) as IntentKind;
    const action = resourceAction(doc, now, prune);
    const plannedVersion =
      action === 'delete' ? null : action === 'create' ? 1 : action === 'update' ? now!.version + 1 : now!.version;
    resources.push({
      kind,
      name: doc?.name ?? now!.name,
      document: doc?.index ?? null,
      action,
      version: { live: now?.version ?? null, planned: plannedVersion },
      diff:
        action === 'update' || action === 'create' || action === 'delete'
          ? jsonDiff(now?.spec ?? {}, doc?.spec ?? {})
          : [],
      managed: now?.managed ?? null,
      drift: driftOf(now),
      reach: null,
    });
  }

  // What stays after the apply, by key: the references below must land on one of these.
  const after = new Map<string, { spec: Record<string, unknown>; document: number | null }>();
  for (const r of resources) {
    if (r.action === 'delete') continue;
    const key = resourceKey(r.kind, r.name);
    after.set(key, {
      spec: (documents.get(key)?.spec ?? live.get(key)!.spec) as Record<string, unknown>,
      document: r.document,
    });
  }
  for (const [key, r] of live)
    if (!after.has(key) && !resources.some((p) => resourceKey(p.kind, p.name) === key))
      after.set(key, { spec: r.spec, document: null });

  const refer = (from: IntentDocument, path: string, kind: IntentKind, name: string) => {
    if (after.has(resourceKey(kind, name))) return true;
    const removed = resources.some((r) => r.kind === kind && r.name === name && r.action === 'delete');
    errors.push({
      path: `/documents/${from.index}${path}`,
      message: removed
        ? `${kind} ${name} is no longer in the files and prune would remove it`
        : `no ${kind} named ${name} in the files or on the controller`,
    });
    return false;
  };
  // A removal whose resource something kept still references.
  for (const r of resources.filter((x) => x.action === 'delete'))
    for (const [key, kept] of after) {
      const s = kept.spec;
      const refs =
        (r.kind === 'Profile' && key.startsWith('Assignment/') && s.profile === r.name) ||
        (r.kind === 'RolloutPolicy' &&
          (key.startsWith('Assignment/') || key.startsWith('FirmwarePolicy/')) &&
          s.rolloutPolicy === r.name);
      if (refs && kept.document === null)
        errors.push({ path: '/prune', message: `${r.kind} ${r.name} cannot be removed: ${key} still names it` });
    }

  const reach = new Map<string, RouterReach[]>();
  const targets = new Map<string, TargetRevision>();
  const firmwareImages = new Map<string, { id: string; sha256: string }>();
  const claimedBy = new Map<string, string>();
  const claim = (doc: IntentDocument, routers: RouterReach[]) => {
    for (const router of routers) {
      const first = claimedBy.get(router.id);
      if (first) {
        errors.push({
          path: `/documents/${doc.index}/spec/selector`,
          message: `router ${router.name} is also selected by ${first}: a router follows one ${doc.kind} at a time`,
        });
        return;
      }
      claimedBy.set(router.id, `${doc.kind} ${doc.name}`);
    }
  };

  for (const doc of docs) {
    if (doc.kind !== 'Assignment' && doc.kind !== 'FirmwarePolicy') continue;
    const spec = doc.spec as AssignmentSpec | FirmwarePolicySpec;
    if (spec.rolloutPolicy && !refer(doc, '/spec/rolloutPolicy', 'RolloutPolicy', spec.rolloutPolicy)) continue;
    const entry = resources.find((r) => r.kind === doc.kind && r.name === doc.name)!;
    const policy = spec.rolloutPolicy ?? null;
    let routers: RouterReach[];
    let target: string;
    if (doc.kind === 'Assignment') {
      const a = doc.spec as AssignmentSpec;
      if (!refer(doc, '/spec/profile', 'Profile', a.profile)) continue;
      const resolved = await targetRevision(db, live, documents, resources, a);
      if ('error' in resolved) {
        errors.push({ path: `/documents/${doc.index}/spec/revision`, message: resolved.error });
        continue;
      }
      targets.set(resourceKey(doc.kind, doc.name), resolved);
      routers = await assignmentReach(db, a.selector as Selector, resolved);
      target = `${a.profile}@${resolved.number}`;
    } else {
      const f = doc.spec as FirmwarePolicySpec;
      const image = await db.firmwareImage.findFirst({
        where: { sha256: f.image, readyAt: { not: null }, deletedAt: null },
        select: { id: true, sha256: true, metadata: true, release: true, revision: true },
      });
      if (!image) {
        errors.push({
          path: `/documents/${doc.index}/spec/image`,
          message: `no firmware image ${f.image} on the controller`,
        });
        continue;
      }
      firmwareImages.set(resourceKey(doc.kind, doc.name), { id: image.id, sha256: f.image });
      routers = await firmwareReach(db, f.selector as Selector, image, firmwareOptions(f, after));
      target = `${image.release} ${image.revision}`;
    }
    claim(doc, routers);
    reach.set(resourceKey(doc.kind, doc.name), routers);
    const counts = { change: 0, revision: 0, retry: 0, unchanged: 0, refused: 0 };
    for (const r of routers) counts[r.verdict] += 1;
    const moving = counts.change + counts.revision + counts.retry;
    entry.reach = {
      target,
      matched: routers.length,
      counts,
      routers: routers.slice(0, ROUTERS_SHOWN),
      rollout: moving > 0 ? { policy, routers: moving } : null,
    };
  }
  if (errors.length) throw new InvalidDocuments(errors);

  resources.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const changes =
    resources.filter((r) => CHANGING.has(r.action)).length + resources.filter((r) => r.reach?.rollout).length;
  return { plan: { changes, state: stateOf(live), prune, resources }, live, documents, reach, targets, firmwareImages };
}

/** The order a plan lists and an apply writes: what others reference first. */
export const KIND_ORDER: Record<IntentKind, number> = {
  Profile: 0,
  RolloutPolicy: 1,
  Assignment: 2,
  FirmwarePolicy: 3,
};

/** A firmware policy's options: its own, else its rollout policy's window, over the defaults. */
export function firmwareOptions(
  f: FirmwarePolicySpec,
  after: Map<string, { spec: Record<string, unknown> }>,
): FirmwareOptions {
  const policy = f.rolloutPolicy
    ? (after.get(resourceKey('RolloutPolicy', f.rolloutPolicy))?.spec as RolloutPolicySpec | undefined)
    : undefined;
  return { ...DEFAULT_FIRMWARE_OPTIONS, ...(policy?.window ? { window: policy.window } : {}), ...f.options };
}

/** The revision an assignment brings its routers to: pinned, or the profile's latest after the apply. */
async function targetRevision(
  db: PrismaClient,
  live: Map<string, LiveResource>,
  documents: Map<string, IntentDocument>,
  resources: ResourcePlan[],
  a: AssignmentSpec,
): Promise<TargetRevision | { error: string }> {
  const key = resourceKey('Profile', a.profile);
  const now = live.get(key);
  const planned = resources.find((r) => r.kind === 'Profile' && r.name === a.profile);
  const latest = planned?.version.planned ?? now!.version;
  const number = a.revision ?? latest;
  const written = planned && (planned.action === 'create' || planned.action === 'update') && number === latest;
  if (written)
    return { id: null, profileId: now?.id ?? 'planned', profile: a.profile, number, spec: documents.get(key)!.spec };
  if (!now || number > now.version)
    return {
      error: `profile ${a.profile} has no revision ${number} (its latest ${now ? `is ${latest}` : 'will be 1'})`,
    };
  const revision = await db.profileRevision.findUnique({
    where: { profileId_number: { profileId: now.id, number } },
    select: { id: true, spec: true },
  });
  if (!revision) return { error: `profile ${a.profile} has no revision ${number}` };
  return { id: revision.id, profileId: now.id, profile: a.profile, number, spec: revision.spec };
}
