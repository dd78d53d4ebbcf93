/**
 * Applying the fleet as code: the plan's resource changes, the rollouts it showed and their
 * audit events commit in one transaction or not at all. A saved plan names the version of every
 * resource it read; if one moved since, nothing is written (Terraform's stale plan).
 */
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditEntry, AuditLog, AuditTransaction } from '../audit/audit-log.js';
import { msUntilWindow } from '../firmware/firmware-options.js';
import { insertRollout, kickRollout, type RolloutStore } from '../rollouts/rollout-create.js';
import { DEFAULT_STRATEGY, type Strategy } from '../rollouts/rollout-strategy.js';
import type {
  AssignmentSpec,
  FirmwarePolicySpec,
  IntentDocument,
  IntentKind,
  RolloutPolicySpec,
} from './intent-documents.js';
import { firmwareOptions, planIntent, type IntentPlan, type PlanWorkings, type ResourcePlan } from './intent-plan.js';
import { readLiveIntent, resourceKey, stateDifferences, stateOf } from './live-intent.js';
import { MOVING_VERDICTS } from './router-reach.js';

/** The fleet moved on since the plan the caller saved (or since this apply planned). */
export class StalePlan extends Error {
  constructor(readonly differences: string[]) {
    super(`the fleet changed since the plan: ${differences.join('; ')}`);
  }
}

/** One apply at a time across replicas ("wrtfinte"): two applies never interleave their writes. */
const INTENT_APPLY_LOCK = 0x77_72_74_66_69_6e_74_65n;

export interface ApplyRequest {
  documents: IntentDocument[];
  prune: boolean;
  /** The commit or label the files came from, recorded with every change. */
  source: string | null;
  /** A saved plan's state: refused unless the fleet is still there. */
  expectState?: Record<string, number>;
}

export interface ApplyOutcome {
  plan: IntentPlan;
  rollouts: { id: string; kind: IntentKind; name: string; routers: number; startAt: string }[];
}

type Ctx = { actor: string; requestId?: string };

/** Applies planned against a fleet that moved meanwhile are planned again up to this many times: enough for a few pipelines applying at once. */
const REPLANS = 10;

/**
 * Plans and applies. Without `expectState` the caller asked for "the files, now": when another
 * writer moved a resource between the plan and the lock, the plan is made again on what is
 * there (a few times), never written over a change it did not see.
 */
export async function applyIntent(
  deps: { db: PrismaClient; audit: AuditLog; rollouts: RolloutStore },
  request: ApplyRequest,
  ctx: Ctx,
): Promise<ApplyOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await applyOnce(deps, request, ctx);
    } catch (err) {
      if (!(err instanceof StalePlan) || request.expectState || attempt >= REPLANS) throw err;
    }
  }
}

async function applyOnce(
  deps: { db: PrismaClient; audit: AuditLog; rollouts: RolloutStore },
  request: ApplyRequest,
  ctx: Ctx,
): Promise<ApplyOutcome> {
  const workings = await planIntent(deps.db, request.documents, request.prune);
  if (request.expectState) {
    const moved = stateDifferences(request.expectState, workings.plan.state);
    if (moved.length) throw new StalePlan(moved);
  }
  if (workings.plan.changes === 0) return { plan: workings.plan, rollouts: [] };
  const started = await deps.audit.record(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${INTENT_APPLY_LOCK})`;
    // What the plan read must still hold under the lock: another apply or an API write since
    // would make this one write over a change it never showed.
    const moved = stateDifferences(workings.plan.state, stateOf(await readLiveIntent(tx)));
    if (moved.length) throw new StalePlan(moved);
    const events: AuditEntry[] = [];
    const writer = new IntentWriter(tx, workings, request.source, ctx, events);
    for (const r of workings.plan.resources) await writer.write(r);
    const rollouts = await writer.startRollouts();
    events.push({
      actor: ctx.actor,
      action: 'intent.applied',
      targetType: 'intent',
      targetId: request.source,
      after: {
        source: request.source,
        prune: request.prune,
        changes: workings.plan.resources
          .filter((r) => r.action !== 'unchanged' && r.action !== 'orphan')
          .map((r) => ({ kind: r.kind, name: r.name, action: r.action, version: r.version.planned })),
        rollouts: rollouts.map((r) => ({ id: r.id, kind: r.kind, name: r.name, routers: r.routers })),
      },
      requestId: ctx.requestId,
    });
    return { result: rollouts, event: events };
  });
  for (const r of started) await kickRollout(deps.rollouts, { id: r.id, startAt: new Date(r.startAt) });
  return { plan: workings.plan, rollouts: started };
}

const TABLES = {
  RolloutPolicy: 'rolloutPolicy',
  Assignment: 'fleetAssignment',
  FirmwarePolicy: 'firmwarePolicy',
} as const;
type Table = (typeof TABLES)[keyof typeof TABLES];

/** Writes one apply's changes through its transaction, collecting their audit events. */
class IntentWriter {
  /** Revisions written by this apply, by profile name: the assignments' rollouts carry them. */
  private readonly written = new Map<string, string>();

  constructor(
    private readonly tx: AuditTransaction,
    private readonly w: PlanWorkings,
    private readonly source: string | null,
    private readonly ctx: Ctx,
    private readonly events: AuditEntry[],
  ) {}

  async write(r: ResourcePlan) {
    if (r.action === 'unchanged' || r.action === 'orphan') return;
    const key = resourceKey(r.kind, r.name);
    const doc = this.w.documents.get(key);
    const live = this.w.live.get(key);
    const managedBy = { managedBy: 'files', source: this.source };
    if (r.kind === 'Profile') await this.writeProfile(r, doc, live?.id ?? null, live?.version ?? 0);
    else {
      const table = this.tx[TABLES[r.kind] as Table] as unknown as {
        create(a: object): Promise<unknown>;
        updateMany(a: object): Promise<{ count: number }>;
        deleteMany(a: object): Promise<{ count: number }>;
      };
      if (r.action === 'create') await table.create({ data: { name: r.name, spec: doc!.spec, version: 1 } });
      else if (r.action === 'update') {
        const { count } = await table.updateMany({
          where: { name: r.name, version: live!.version },
          data: { spec: doc!.spec, version: live!.version + 1 },
        });
        if (count !== 1) throw new StalePlan([`${key} changed during the apply`]);
      } else if (r.action === 'delete') await table.deleteMany({ where: { name: r.name } });
    }
    if (r.action === 'delete') await this.tx.managedResource.deleteMany({ where: { kind: r.kind, name: r.name } });
    else {
      const mark = {
        version: r.version.planned!,
        source: this.source,
        appliedBy: this.ctx.actor,
        appliedAt: new Date(),
      };
      await this.tx.managedResource.upsert({
        where: { kind_name: { kind: r.kind, name: r.name } },
        create: { kind: r.kind, name: r.name, ...mark },
        update: mark,
      });
    }
    const noun = r.kind === 'Profile' ? 'profile' : r.kind.replace(/^[A-Z]/, (c) => c.toLowerCase());
    const verb = {
      create: 'created',
      update: r.kind === 'Profile' ? 'revised' : 'updated',
      adopt: 'adopted',
      delete: 'deleted',
    }[r.action];
    this.events.push({
      actor: this.ctx.actor,
      action: `${noun}.${verb}`,
      targetType: noun,
      targetId: r.name,
      before: live ? { version: live.version, spec: live.spec } : undefined,
      after: r.action === 'delete' ? undefined : { version: r.version.planned, spec: doc!.spec, ...managedBy },
      diff: r.diff.length ? r.diff : undefined,
      requestId: this.ctx.requestId,
    });
  }

  private async writeProfile(r: ResourcePlan, doc: IntentDocument | undefined, liveId: string | null, latest: number) {
    const tx = this.tx;
    if (r.action === 'delete') {
      // Revisions stay (routers and rollouts name them); the profile leaves the fleet's intent.
      await tx.profile.update({ where: { id: liveId! }, data: { archivedAt: new Date() } });
      return;
    }
    if (r.action === 'adopt') return;
    // An archived profile of the same name comes back with a new revision, its history kept.
    const existing = liveId
      ? { id: liveId, latestRevision: latest }
      : await tx.profile.findUnique({ where: { name: r.name } });
    if (!existing) {
      const created = await tx.profile.create({
        data: {
          name: r.name,
          latestRevision: 1,
          revisions: { create: { number: 1, spec: doc!.spec as object, createdBy: this.ctx.actor } },
        },
        include: { revisions: true },
      });
      this.written.set(r.name, created.revisions[0]!.id);
      return;
    }
    const next = existing.latestRevision + 1;
    const { count } = await tx.profile.updateMany({
      where: { id: existing.id, latestRevision: existing.latestRevision },
      data: { latestRevision: next, archivedAt: null },
    });
    if (count !== 1) throw new StalePlan([`Profile/${r.name} changed during the apply`]);
    const revision = await tx.profileRevision.create({
      data: { profileId: existing.id, number: next, spec: doc!.spec as object, createdBy: this.ctx.actor },
    });
    r.version.planned = next;
    this.written.set(r.name, revision.id);
  }

  /** One rollout per Assignment or FirmwarePolicy with routers to move, through its policy. */
  async startRollouts(): Promise<ApplyOutcome['rollouts']> {
    const out: ApplyOutcome['rollouts'] = [];
    for (const r of this.w.plan.resources) {
      if (!r.reach?.rollout) continue;
      const key = resourceKey(r.kind, r.name);
      const spec = this.w.documents.get(key)!.spec as AssignmentSpec | FirmwarePolicySpec;
      const policy = spec.rolloutPolicy ? this.policySpec(spec.rolloutPolicy) : null;
      const { window, ...strategyFields } = policy ?? {};
      const strategy: Strategy = { ...DEFAULT_STRATEGY, ...strategyFields };
      const routers = this.w.reach.get(key)!;
      const moving = routers.filter((x) => MOVING_VERDICTS.has(x.verdict)).map((x) => ({ id: x.id }));
      const leftOut = routers
        .filter((x) => x.verdict === 'refused')
        .map((x) => ({ routerId: x.id, reason: x.reason! }));
      const selector = { ids: moving.map((m) => m.id) };
      const ctx = this.ctx;
      const provenance = { [r.kind === 'Assignment' ? 'assignment' : 'firmwarePolicy']: r.name, source: this.source };
      let rollout;
      if (r.kind === 'Assignment') {
        const target = this.w.targets.get(key)!;
        const revisionId = target.id ?? this.written.get(target.profile)!;
        // A profile rollout has no window of its own: it starts at the policy window's next opening.
        const startAt = new Date(Date.now() + msUntilWindow(window, new Date()));
        rollout = await insertRollout(this.tx, {
          carries: { revisionId },
          selector,
          strategy,
          routers: moving,
          leftOut,
          startAt,
          ctx,
          after: {
            profile: target.profile,
            revision: target.number,
            selector,
            strategy,
            targets: moving.length,
            ...provenance,
          },
        });
      } else {
        const image = this.w.firmwareImages.get(key)!;
        const options = firmwareOptions(spec as FirmwarePolicySpec, this.policies());
        rollout = await insertRollout(this.tx, {
          carries: { firmwareImageId: image.id, firmwareOptions: options as object },
          selector,
          strategy,
          routers: moving,
          leftOut,
          leftOutBecause: 'the image does not fit it',
          ctx,
          after: {
            firmware: { image: image.sha256 },
            options,
            selector,
            strategy,
            targets: moving.length,
            ...provenance,
          },
        });
      }
      this.events.push(rollout.event);
      out.push({
        id: rollout.rollout.id,
        kind: r.kind,
        name: r.name,
        routers: moving.length,
        startAt: rollout.rollout.startAt.toISOString(),
      });
    }
    return out;
  }

  private policies() {
    const m = new Map<string, { spec: Record<string, unknown> }>();
    for (const [k, v] of this.w.live) if (v.kind === 'RolloutPolicy') m.set(k, v);
    for (const [k, v] of this.w.documents) if (v.kind === 'RolloutPolicy') m.set(k, v);
    return m;
  }

  private policySpec(name: string): RolloutPolicySpec {
    return this.policies().get(resourceKey('RolloutPolicy', name))!.spec as RolloutPolicySpec;
  }
}
