import { planHashInput, resolvePlan, type CapabilityReport, type Plan, type PlanRouter } from '../../core/plan.js';
import { validateProfileSpec, type ProfileSpec } from '../../core/profile-spec.js';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { jsonDiff, type JsonChange } from '../audit/json-diff.js';

type StoredCapabilitySet = Record<string, { value: boolean; reason: string }> | null | undefined;

function capabilityReport(set: StoredCapabilitySet): CapabilityReport | null {
  if (!set) return null;
  const report: CapabilityReport = { reasons: {} };
  for (const key of ['hardwareOffload', 'softwareOffload', 'ebpf', 'tcx'] as const) {
    const c = set[key];
    if (!c) continue;
    report[key] = c.value;
    report.reasons![key] = c.reason;
  }
  return report;
}

/** A stored router, as the plan function reads it: its fact sheet and its reported capabilities. */
export function planRouterOf(router: {
  facts: unknown;
  capabilities: unknown;
  soc: string | null;
  kernel: string | null;
  arch: string | null;
  endian: string | null;
}): PlanRouter {
  const facts = (router.facts ?? {
    soc: router.soc,
    kernel: router.kernel,
    arch: router.arch,
    endian: router.endian,
    openwrt: null,
    socFamily: null,
  }) as PlanRouter['facts'];
  const caps = (router.capabilities ?? {}) as { predicted?: StoredCapabilitySet; probed?: StoredCapabilitySet };
  return {
    facts,
    capabilities: { predicted: capabilityReport(caps.predicted), probed: capabilityReport(caps.probed) },
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Per-router overrides are a partial spec laid over the revision's spec. */
export function overlay(base: unknown, patch: unknown): unknown {
  if (!isObject(base) || !isObject(patch)) return patch === undefined ? base : patch;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = overlay(base[k], v);
  return out;
}

/**
 * A router's effective spec: the revision's spec with the router's overrides laid over it
 * (only when the assignment is for that same profile), validated. The one rule for previews
 * and for what is sent to the agent.
 */
export function effectiveSpec(
  revision: { spec: unknown; profileId: string },
  assignment: { profileId: string; overrides: unknown } | null | undefined,
): { spec: ProfileSpec; overrides: unknown } | { error: string; overrides: unknown } {
  const overrides = assignment && assignment.profileId === revision.profileId ? (assignment.overrides ?? null) : null;
  const valid = validateProfileSpec(overrides ? overlay(revision.spec, overrides) : revision.spec);
  return valid.ok
    ? { spec: valid.spec, overrides }
    : { error: valid.errors.map((e) => `${e.path} ${e.message}`).join('; '), overrides };
}

export interface EffectiveProfile {
  profile: string;
  revision: number;
  revisionId: string;
  spec: ProfileSpec;
  overrides: unknown;
}

export class EffectiveProfileError extends Error {}

/**
 * What a router should run and what that means on it: the effective profile (revision
 * plus the router's overrides) and the plan the agent would compute, with what would
 * change against the plan of the revision it runs now. Nothing here touches a router.
 */
export class PlanPreview {
  constructor(private readonly db: PrismaClient) {}

  async effectiveProfile(
    routerId: string,
    choice?: { profile: string; revision?: number },
  ): Promise<EffectiveProfile | null> {
    const assignment = await this.db.assignment.findUnique({ where: { routerId }, include: { profile: true } });
    const profileName = choice?.profile ?? assignment?.profile.name;
    if (!profileName) return null;
    const profile = await this.db.profile.findUnique({ where: { name: profileName } });
    if (!profile) throw new EffectiveProfileError(`no profile named ${profileName}`);
    const number =
      choice?.revision ?? (choice ? profile.latestRevision : (assignment?.pinnedRevision ?? profile.latestRevision));
    const revision = await this.db.profileRevision.findUnique({
      where: { profileId_number: { profileId: profile.id, number } },
    });
    if (!revision) throw new EffectiveProfileError(`profile ${profileName} has no revision ${number}`);
    const effective = effectiveSpec(revision, assignment);
    if ('error' in effective) {
      throw new EffectiveProfileError(
        `the router's overrides make profile ${profileName} r${number} invalid: ${effective.error}`,
      );
    }
    return {
      profile: profileName,
      revision: number,
      revisionId: revision.id,
      spec: effective.spec,
      overrides: effective.overrides,
    };
  }

  async forRouter(routerId: string, choice?: { profile: string; revision?: number }) {
    const router = await this.db.router.findUnique({
      where: { id: routerId },
      include: { appliedRevision: { include: { profile: true } } },
    });
    if (!router) return null;
    const effective = await this.effectiveProfile(routerId, choice);
    if (!effective)
      return { routerId, name: router.name, effective: null, plan: null, applied: null, changes: [] as JsonChange[] };
    const planRouter = planRouterOf(router);
    const plan = resolvePlan(effective.spec, planRouter);
    let appliedPlan: Plan | null = null;
    if (router.appliedRevision) {
      const valid = validateProfileSpec(router.appliedRevision.spec);
      if (valid.ok) appliedPlan = resolvePlan(valid.spec, planRouter);
    }
    const changes = jsonDiff(appliedPlan ? planHashInput(appliedPlan) : {}, planHashInput(plan));
    return {
      routerId,
      name: router.name,
      effective: { profile: effective.profile, revision: effective.revision, overrides: effective.overrides },
      applied: router.appliedRevision
        ? {
            profile: router.appliedRevision.profile.name,
            revision: router.appliedRevision.number,
            planHash: appliedPlan?.planHash ?? null,
          }
        : null,
      plan,
      changes,
    };
  }
}
