import { Prisma, type PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { jsonDiff } from '../audit/json-diff.js';

export const BULK_ACTIONS = ['tag', 'untag', 'assign'] as const;

interface Context {
  actor: string;
  requestId?: string;
}

interface Revision {
  profileId: string;
  profile: string;
  pinnedRevision: number | null;
}

/**
 * Tag, untag and assign on many routers. Each router's change and its own audit event commit
 * together (AuditLog.record), and changes issued at once share transactions, so a thousand
 * routers take a few transactions, not a thousand. A router the action leaves as it was gets
 * no event.
 */
export class BulkRouterActions {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
  ) {}

  async retag(ids: string[], action: 'tag' | 'untag', tags: string[], context: Context): Promise<number> {
    const changes = await Promise.all(
      ids.map((id) =>
        this.audit.record(async (tx) => {
          const router = await tx.router.findUnique({ where: { id }, select: { tags: true } });
          if (!router) return { result: false, event: null };
          const next =
            action === 'tag'
              ? [...new Set([...router.tags, ...tags])].sort()
              : router.tags.filter((t) => !tags.includes(t));
          if (next.length === router.tags.length && next.every((t, i) => t === router.tags[i]))
            return { result: false, event: null };
          await tx.router.update({ where: { id }, data: { tags: next } });
          return {
            result: true,
            event: {
              ...context,
              action: 'router.tags.set',
              targetType: 'router',
              targetId: id,
              before: { tags: router.tags },
              after: { tags: next },
              diff: jsonDiff({ tags: router.tags }, { tags: next }),
            },
          };
        }),
      ),
    );
    return changes.filter(Boolean).length;
  }

  /** The profile and revision an assignment names, or why it names none. */
  async resolveRevision(
    profile: string,
    pinnedRevision: number | null,
  ): Promise<Revision | 'no_profile' | 'no_revision'> {
    const found = await this.db.profile.findUnique({ where: { name: profile } });
    if (!found) return 'no_profile';
    const number = pinnedRevision ?? found.latestRevision;
    const revision = await this.db.profileRevision.findUnique({
      where: { profileId_number: { profileId: found.id, number } },
      select: { id: true },
    });
    if (!revision) return 'no_revision';
    return { profileId: found.id, profile, pinnedRevision };
  }

  async assign(ids: string[], revision: Revision, context: Context): Promise<number> {
    const after = { profile: revision.profile, pinnedRevision: revision.pinnedRevision, overrides: null };
    const changes = await Promise.all(
      ids.map((id) =>
        this.audit.record(async (tx) => {
          const before = await tx.assignment.findUnique({ where: { routerId: id }, include: { profile: true } });
          const beforeView = before
            ? { profile: before.profile.name, pinnedRevision: before.pinnedRevision, overrides: before.overrides }
            : null;
          if (beforeView && JSON.stringify(beforeView) === JSON.stringify(after)) return { result: false, event: null };
          const data = { profileId: revision.profileId, pinnedRevision: revision.pinnedRevision };
          await tx.assignment.upsert({
            where: { routerId: id },
            create: { routerId: id, ...data },
            update: { ...data, overrides: Prisma.JsonNull },
          });
          return {
            result: true,
            event: {
              ...context,
              action: 'router.assignment.set',
              targetType: 'router',
              targetId: id,
              before: beforeView,
              after,
              diff: jsonDiff(beforeView ?? {}, after),
            },
          };
        }),
      ),
    );
    return changes.filter(Boolean).length;
  }
}
