import { validateProfileSpec, type ProfileSpec, type ProfileSpecError } from '../../core/profile-spec.js';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { jsonDiff } from '../audit/json-diff.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { managedView } from '../intent/managed-view.js';

export const PROFILE_NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';
const PROFILE_NAME = new RegExp(PROFILE_NAME_PATTERN);

export class InvalidProfile extends Error {
  constructor(readonly errors: ProfileSpecError[]) {
    super(`the profile spec is invalid: ${errors.map((e) => `${e.path || '/'} ${e.message}`).join('; ')}`);
  }
}

/** Someone else wrote a revision since the caller read the profile. */
export class StaleRevision extends Error {
  constructor(
    readonly latest: number,
    readonly base: number | undefined,
  ) {
    super(
      base === undefined
        ? `profile exists at revision ${latest}: send baseRevision to change it`
        : `profile is at revision ${latest}, not ${base}: re-read it and apply your change on top`,
    );
  }
}

export interface AuditContext {
  actor: string;
  requestId?: string;
}

export interface SaveResult {
  name: string;
  revision: number;
  /** False when the spec equalled the latest revision's: nothing was written. */
  changed: boolean;
  created: boolean;
  spec: ProfileSpec;
}

/**
 * Profiles and their immutable, numbered revisions. A save never edits a revision: it
 * adds one, guarded by optimistic concurrency (the caller names the revision it started
 * from; a conditional update on latestRevision lets exactly one concurrent writer win).
 */
export class ProfileStore {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
  ) {}

  /** Creates the profile or adds a revision; `baseRevision` is required once it exists. */
  async save(
    name: string,
    specInput: unknown,
    baseRevision: number | undefined,
    ctx: AuditContext,
  ): Promise<SaveResult> {
    if (!PROFILE_NAME.test(name)) {
      throw new InvalidProfile([{ path: '/name', message: `must match ${PROFILE_NAME_PATTERN}` }]);
    }
    const validation = validateProfileSpec(specInput);
    if (!validation.ok) throw new InvalidProfile(validation.errors);
    const spec = validation.spec;

    const existing = await this.db.profile.findUnique({ where: { name } });
    if (!existing) {
      if (baseRevision !== undefined && baseRevision !== 0) throw new StaleRevision(0, baseRevision);
      try {
        // The profile, its first revision and the profile.created event commit together.
        await this.audit.record(async (tx) => {
          await tx.profile.create({
            data: {
              name,
              latestRevision: 1,
              revisions: { create: { number: 1, spec: spec as object, createdBy: ctx.actor } },
            },
          });
          return {
            result: undefined,
            event: {
              actor: ctx.actor,
              action: 'profile.created',
              targetType: 'profile',
              targetId: name,
              after: { revision: 1, spec },
              requestId: ctx.requestId,
            },
          };
        });
      } catch (err) {
        if ((err as { code?: string }).code === 'P2002') throw new StaleRevision(1, baseRevision);
        throw err;
      }
      return { name, revision: 1, changed: true, created: true, spec };
    }

    const latest = await this.db.profileRevision.findUniqueOrThrow({
      where: { profileId_number: { profileId: existing.id, number: existing.latestRevision } },
    });
    if (canonicalJson(latest.spec) === canonicalJson(spec)) {
      return { name, revision: latest.number, changed: false, created: false, spec };
    }
    if (baseRevision !== existing.latestRevision) throw new StaleRevision(existing.latestRevision, baseRevision);

    const next = baseRevision + 1;
    // The new revision and its profile.revised event commit together.
    const won = await this.audit.record(async (tx) => {
      const { count } = await tx.profile.updateMany({
        where: { id: existing.id, latestRevision: baseRevision },
        data: { latestRevision: next },
      });
      if (count === 0) return { result: false, event: null };
      await tx.profileRevision.create({
        data: { profileId: existing.id, number: next, spec: spec as object, createdBy: ctx.actor },
      });
      return {
        result: true,
        event: {
          actor: ctx.actor,
          action: 'profile.revised',
          targetType: 'profile',
          targetId: name,
          before: { revision: latest.number, spec: latest.spec },
          after: { revision: next, spec },
          diff: jsonDiff(latest.spec, spec),
          requestId: ctx.requestId,
        },
      };
    });
    if (!won) {
      const now = await this.db.profile.findUniqueOrThrow({ where: { id: existing.id } });
      throw new StaleRevision(now.latestRevision, baseRevision);
    }
    return { name, revision: next, changed: true, created: false, spec };
  }

  async get(name: string) {
    return this.db.profile.findUnique({ where: { name } });
  }

  async list(limit: number, after?: string) {
    const rows = await this.db.profile.findMany({
      // A profile pruned from the files is archived: its revisions stay, it leaves the list.
      where: { archivedAt: null, ...(after ? { name: { gt: after } } : {}) },
      orderBy: { name: 'asc' },
      take: limit + 1,
    });
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? (items[items.length - 1]?.name ?? null) : null };
  }

  /** Which of these profiles the fleet's files manage (ManagedResource), by name. */
  async managedMarks(names: string[]) {
    const rows = await this.db.managedResource.findMany({ where: { kind: 'Profile', name: { in: names } } });
    return new Map(rows.map((m) => [m.name, managedView(m)]));
  }

  async revision(name: string, number?: number) {
    const profile = await this.db.profile.findUnique({ where: { name } });
    if (!profile) return null;
    return this.db.profileRevision.findUnique({
      where: { profileId_number: { profileId: profile.id, number: number ?? profile.latestRevision } },
      include: { profile: { select: { name: true } } },
    });
  }

  async revisions(name: string, limit: number, beforeNumber?: number) {
    const profile = await this.db.profile.findUnique({ where: { name } });
    if (!profile) return null;
    const rows = await this.db.profileRevision.findMany({
      where: { profileId: profile.id, ...(beforeNumber ? { number: { lt: beforeNumber } } : {}) },
      orderBy: { number: 'desc' },
      take: limit + 1,
    });
    const items = rows.slice(0, limit);
    return { items, nextCursor: rows.length > limit ? String(items[items.length - 1]!.number) : null };
  }
}
