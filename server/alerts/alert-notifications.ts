import { randomUUID } from 'node:crypto';
import type { Alert, AlertRule, Prisma } from '../../prisma/generated/client/client.js';
import {
  atLeast,
  countOf,
  isRouterKind,
  KIND_WORDS,
  type AlertKindName,
  type AlertSeverityName,
} from './alert-kinds.js';
import { MAX_LISTED_ALERTS, type AlertLine, type NotificationPayload } from './notification-payload.js';

type Db = Prisma.TransactionClient;

/** Alerts a group has yet to tell: firing and not told (nor silenced, nor acknowledged), or resolved after being told firing. */
const UNTOLD = `(("state" = 'firing' AND "notifiedState" IS NULL AND "silenceId" IS NULL AND "acknowledgedAt" IS NULL)
   OR ("state" = 'resolved' AND "notifiedState" = 'firing'))`;

/**
 * Turns what changed in each group into one notification per channel, once the group's wait is
 * over: the first message of a group waits `groupWaitSeconds` from its first change for the
 * alerts that follow (300 routers of a site going dark within a minute are one message), later
 * ones come at most every `groupIntervalSeconds`, each saying what fired and resolved since the
 * one before and how many still fire. Runs in the evaluation's transaction, under its lock.
 */
export async function notifyGroups(tx: Db, now: Date): Promise<{ notifications: number; nextDueAt: Date | null }> {
  const groups = await tx.$queryRawUnsafe<{ ruleId: string; groupKey: string; changedAt: Date }[]>(
    `SELECT "ruleId", "groupKey",
            min(CASE WHEN "state" = 'firing' THEN "firedAt" ELSE "resolvedAt" END) AS "changedAt"
       FROM "Alert" WHERE ${UNTOLD} GROUP BY "ruleId", "groupKey"`,
  );
  if (groups.length === 0) return { notifications: 0, nextDueAt: null };
  const rules = new Map(
    (await tx.alertRule.findMany({ where: { id: { in: [...new Set(groups.map((g) => g.ruleId))] } } })).map((r) => [
      r.id,
      r,
    ]),
  );
  const channels = await tx.alertChannel.findMany({ where: { deletedAt: null } });
  let notifications = 0;
  let nextDueAt: Date | null = null;
  for (const g of groups) {
    const rule = rules.get(g.ruleId);
    if (!rule) continue;
    const state = await tx.alertGroup.findUnique({
      where: { ruleId_groupKey: { ruleId: g.ruleId, groupKey: g.groupKey } },
    });
    // A group with alerts it told firing is under way: its updates keep the interval. One with
    // none (new, or all told resolved) starts again: its first message waits for companions.
    const underway =
      state?.lastNotifiedAt &&
      (await tx.alert.count({ where: { ruleId: g.ruleId, groupKey: g.groupKey, notifiedState: 'firing' } })) > 0;
    const dueAt = underway
      ? state.lastNotifiedAt!.getTime() + rule.groupIntervalSeconds * 1000
      : g.changedAt.getTime() + rule.groupWaitSeconds * 1000;
    if (dueAt > now.getTime()) {
      if (!nextDueAt || dueAt < nextDueAt.getTime()) nextDueAt = new Date(dueAt);
      continue;
    }
    const inGroup = { ruleId: g.ruleId, groupKey: g.groupKey };
    // Counted whole, listed up to MAX_LISTED_ALERTS: 3,000 routers are a count and fifty names.
    const freshWhere = {
      ...inGroup,
      state: 'firing',
      notifiedState: null,
      silenceId: null,
      acknowledgedAt: null,
    } as const;
    const clearedWhere = { ...inGroup, state: 'resolved', notifiedState: 'firing' } as const;
    const [fresh, freshCount, cleared, clearedCount, firing] = [
      await tx.alert.findMany({
        where: freshWhere,
        orderBy: [{ firedAt: 'asc' }, { id: 'asc' }],
        take: MAX_LISTED_ALERTS,
      }),
      await tx.alert.count({ where: freshWhere }),
      await tx.alert.findMany({
        where: clearedWhere,
        orderBy: [{ resolvedAt: 'asc' }, { id: 'asc' }],
        take: MAX_LISTED_ALERTS,
      }),
      await tx.alert.count({ where: clearedWhere }),
      await tx.alert.count({ where: { ...inGroup, state: 'firing', silenceId: null } }),
    ];
    const sequence = (state?.sequence ?? 0) + 1;
    const base = payloadOf(rule, g.groupKey, sequence, { fresh, freshCount, cleared, clearedCount, firing }, now);
    const admitted = channels.filter(
      (c) =>
        atLeast(rule.severity as AlertSeverityName, c.minSeverity as AlertSeverityName) &&
        (c.rules.length === 0 || c.rules.includes(rule.name)),
    );
    if (admitted.length) {
      await tx.alertNotification.createMany({
        data: admitted.map((c) => {
          const id = randomUUID();
          return {
            id,
            channelId: c.id,
            ruleId: rule.id,
            groupKey: g.groupKey,
            sequence,
            payload: { ...base, id } satisfies NotificationPayload,
            nextAttemptAt: now,
          };
        }),
      });
      notifications += admitted.length;
    }
    // Told, whether or not a channel listens: a channel added later starts from the present.
    // The same conditions as the counts, in the same transaction under the evaluation's lock.
    if (freshCount) await tx.alert.updateMany({ where: freshWhere, data: { notifiedState: 'firing' } });
    if (clearedCount) await tx.alert.updateMany({ where: clearedWhere, data: { notifiedState: 'resolved' } });
    await tx.alertGroup.upsert({
      where: { ruleId_groupKey: inGroup },
      create: { ...inGroup, lastNotifiedAt: now, sequence },
      update: { lastNotifiedAt: now, sequence },
    });
  }
  return { notifications, nextDueAt };
}

function line(a: Alert): AlertLine {
  return {
    id: a.id,
    subject: { kind: a.subjectKind, id: a.subjectId, name: a.subjectName },
    summary: a.summary,
    since: a.since.toISOString(),
    firedAt: a.firedAt.toISOString(),
    ...(a.resolvedAt ? { resolvedAt: a.resolvedAt.toISOString() } : {}),
  };
}

/** The message without its id (each channel's notification has its own). */
export function payloadOf(
  rule: AlertRule,
  groupKey: string,
  sequence: number,
  changes: { fresh: Alert[]; freshCount: number; cleared: Alert[]; clearedCount: number; firing: number },
  now: Date,
): Omit<NotificationPayload, 'id'> {
  const kind = rule.kind as AlertKindName;
  const words = KIND_WORDS[kind];
  const { fresh, freshCount, cleared, clearedCount, firing } = changes;
  let title: string;
  if (isRouterKind(kind)) {
    title =
      firing > 0
        ? `${countOf(firing, 'router')} ${words.firing}: ${groupKey}`
        : `${countOf(clearedCount, 'router')} ${words.resolved}: ${groupKey}`;
  } else {
    const subject = (fresh[0] ?? cleared[0])?.subjectName ?? groupKey;
    title = firing > 0 ? (fresh[0]?.summary ?? `${subject} ${words.firing}`) : `${subject} ${words.resolved}`;
  }
  return {
    version: 1,
    status: firing > 0 ? 'firing' : 'resolved',
    title,
    rule: { name: rule.name, kind, severity: rule.severity as AlertSeverityName },
    group: { key: groupKey, sequence },
    counts: { firing, new: freshCount, resolved: clearedCount },
    new: fresh.map(line),
    resolved: cleared.map(line),
    createdAt: now.toISOString(),
  };
}
