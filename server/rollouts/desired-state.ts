import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AgentGateway } from '../agent-gateway/agent-gateway.js';
import type { AgentSession } from '../agent-gateway/agent-session.js';
import type { ProfileSpec } from '../../core/profile-spec.js';
import { effectiveSpec } from '../fleet/plan-preview.js';
import { callBatcher } from '../../core/call-batcher.js';
import { retryWhileDatabaseAway } from '../storage/database-unavailable.js';
import { idRows } from '../storage/id-rows.js';
import { shareBody } from '../agent-gateway/controller-message-encoding.js';
import type { ControllerMessage } from '../../proto/gen/wrtfleet/agent/v1/agent.js';

type DesiredStateBody = Extract<NonNullable<ControllerMessage['body']>, { $case: 'desiredState' }>;

/**
 * Sends written in one turn of the event loop before the others get theirs: a batch of 2,500
 * written at once held the loop for up to 0.2 s (a CPU profile of a 3,000-router rollout), and
 * the API's requests waited behind it.
 */
const SENDS_PER_TURN = 250;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Pushes each router's desired revision down its stream, on the replica that holds the
 * stream: when a rollout dispatches it (via the fleet bus) and whenever the agent
 * (re)connects running something else, unless it rolled that rollout's revision back.
 */
export class DesiredStateDelivery {
  /**
   * The rollout and revision last sent down each stream. A rollout dispatches each router once,
   * so the same again on the same stream is a duplicate (a bus message resent after Redis
   * returned, a catch-up racing it): an agent applies every desired state it gets.
   */
  private readonly sentOnStream = new WeakMap<AgentSession, string>();

  constructor(
    private readonly db: PrismaClient,
    private readonly gateway: AgentGateway,
    private readonly log: Logger,
  ) {}

  /**
   * Delivery of a fleet-bus message, tried again while the database is away (up to 120 s, as
   * an agent message's store): the bus sends a message once and the rollout has marked these
   * routers sent, so a delivery lost to an outage would leave them waiting for the sweep's
   * redelivery, a third of the result timeout.
   */
  async deliverPublished(routerIds: string[]): Promise<void> {
    await retryWhileDatabaseAway(() => this.deliver(routerIds), {
      onWait: () =>
        this.log.warn({ routers: routerIds.length }, 'database unavailable; desired states wait until it returns'),
    });
  }

  /** `running`: what agents said they run; a router already on its desired revision is not sent it again. */
  async deliver(routerIds: string[], running?: Map<string, { profile: string; revision: number }>): Promise<void> {
    const here = routerIds.filter((id) => this.gateway.sessions.has(id));
    if (here.length === 0) return;
    const routers = await desiredStatesOf(this.db, here);
    const specs = new Map<string, ProfileSpec | Error>();
    // One body per spec and rollout, encoded once for every stream it goes to.
    const bodies = new Map<string, DesiredStateBody>();
    let sentThisTurn = 0;
    for (const router of routers) {
      if (sentThisTurn === SENDS_PER_TURN) {
        await nextTurn();
        sentThisTurn = 0;
      }
      const revision = router.desiredRevision;
      const session = this.gateway.sessions.get(router.id);
      if (!revision || !session) continue;
      const current = running?.get(router.id);
      if (current && current.profile === revision.profile.name && current.revision === revision.number) continue;
      const sentKey = `${router.desiredRolloutId ?? ''}\u0000${revision.id}`;
      if (this.sentOnStream.get(session) === sentKey) continue;
      const overrides =
        router.assignment && router.assignment.profileId === revision.profileId ? router.assignment.overrides : null;
      const key = `${revision.id}\u0000${JSON.stringify(overrides)}`;
      let spec = specs.get(key);
      if (!spec) {
        const effective = effectiveSpec(revision, router.assignment);
        spec = 'error' in effective ? new Error(effective.error) : effective.spec;
        specs.set(key, spec);
      }
      if (spec instanceof Error) {
        this.log.error(
          { routerId: router.id, reason: spec.message },
          'desired revision with overrides is not a valid spec; not sent',
        );
        continue;
      }
      const bodyKey = `${key}\u0000${router.desiredRolloutId ?? ''}`;
      let body = bodies.get(bodyKey);
      if (!body) {
        body = shareBody({
          $case: 'desiredState',
          value: {
            profile: revision.profile.name,
            revision: revision.number,
            spec: spec as unknown as { [key: string]: unknown },
            confirmWindowSeconds: spec.commitConfirm.windowSeconds,
            rolloutId: router.desiredRolloutId ?? '',
          },
        });
        bodies.set(bodyKey, body);
      }
      session.send(body);
      this.sentOnStream.set(session, sentKey);
      sentThisTurn++;
    }
  }

  /**
   * On (re)connect: send the desired revision unless the agent says it already runs it. Not
   * yet when an earlier stream was sent it and no result has come back: the agent may have
   * applied it and rolled it back while cut off, and says so with the results it sends right
   * after Welcome (onCaughtUp decides then). Never when the router rolled back that rollout's
   * revision: commit-confirmed rolled back because the controller could not reach the router
   * after the change, and sending it again on every return would loop (apply, cut off, roll
   * back) when the change itself cuts the router off. A new rollout retries it.
   *
   * Routers connecting together are looked up together: two queries per batch, not per stream.
   */
  onConnected(
    routerId: string,
    applied: { profile: string; revision: number } | undefined,
    sessionStartedAt: Date,
  ): Promise<void> {
    return this.connected({ routerId, applied, sessionStartedAt });
  }

  private readonly connected = callBatcher(
    async (
      batch: { routerId: string; applied: { profile: string; revision: number } | undefined; sessionStartedAt: Date }[],
    ) => {
      const targets = await this.desiredTargets(batch.map((b) => b.routerId));
      const running = new Map<string, { profile: string; revision: number }>();
      const known: string[] = [];
      const unknown: string[] = [];
      for (const { routerId, applied, sessionStartedAt } of batch) {
        const target = targets.get(routerId);
        if (target?.state === 'rolled_back') {
          this.keepRolledBack(routerId, target.rolloutId);
          continue;
        }
        if (target && sentOnEarlierStream(target, sessionStartedAt)) {
          this.awaitingCatchUp.set(routerId, sessionStartedAt);
          continue;
        }
        // An agent that did not say what it runs is sent its desired state whatever it is.
        if (applied) {
          running.set(routerId, applied);
          known.push(routerId);
        } else unknown.push(routerId);
      }
      await Promise.all([this.deliver(known, running), this.deliver(unknown)]);
      return batch.map(() => undefined);
    },
    { windowMs: 20, maxBatch: 500 },
  );

  /** Streams whose delivery waits for the agent to catch up (onConnected), by router. */
  private readonly awaitingCatchUp = new Map<string, Date>();

  /**
   * The stream's first heartbeat: the agent's results from while it was away are stored. A
   * revision sent on an earlier stream and still without a result never reached the agent:
   * send it again. One it rolled back stays rolled back. Only streams onConnected held back
   * are looked at, so a fleet's first heartbeats cost nothing here.
   */
  async onCaughtUp(routerId: string, sessionStartedAt: Date): Promise<void> {
    if (this.awaitingCatchUp.get(routerId)?.getTime() !== sessionStartedAt.getTime()) return;
    this.awaitingCatchUp.delete(routerId);
    const target = (await this.desiredTargets([routerId])).get(routerId);
    if (target?.state === 'rolled_back') return this.keepRolledBack(routerId, target.rolloutId);
    if (target && sentOnEarlierStream(target, sessionStartedAt)) await this.deliver([routerId]);
  }

  /** Each router's target in the rollout that set its desired revision (absent: no rollout did). */
  private async desiredTargets(routerIds: string[]) {
    const routers = await this.db.router.findMany({
      where: { id: { in: [...new Set(routerIds)] }, desiredRolloutId: { not: null } },
      select: { id: true, desiredRolloutId: true },
    });
    const byRouter = new Map<string, { rolloutId: string; state: string; sentAt: Date | null }>();
    if (routers.length === 0) return byRouter;
    const rows = await this.db.rolloutTarget.findMany({
      where: {
        routerId: { in: routers.map((r) => r.id) },
        rolloutId: { in: [...new Set(routers.map((r) => r.desiredRolloutId!))] },
      },
      select: { rolloutId: true, routerId: true, state: true, sentAt: true },
    });
    const desired = new Map(routers.map((r) => [r.id, r.desiredRolloutId]));
    for (const t of rows) if (desired.get(t.routerId) === t.rolloutId) byRouter.set(t.routerId, t);
    return byRouter;
  }

  private keepRolledBack(routerId: string, rolloutId: string): void {
    this.log.info({ routerId, rolloutId }, 'router rolled back this rollout; its revision is not sent again');
  }

  /**
   * After the fleet bus was away (messages published meanwhile are lost): sends each router
   * connected here the desired revision it does not run, unless its stream was sent it already.
   */
  async catchUp(): Promise<void> {
    const routers = await this.db.router.findMany({
      where: { id: { in: [...this.gateway.sessions.keys()] }, desiredRevisionId: { not: null } },
      select: { id: true, desiredRevisionId: true, appliedRevisionId: true },
    });
    const behind = routers.filter((r) => r.desiredRevisionId !== r.appliedRevisionId).map((r) => r.id);
    // A revision the router rolled back stays rolled back here too.
    const targets = await this.desiredTargets(behind);
    await this.deliver(behind.filter((id) => targets.get(id)?.state !== 'rolled_back'));
  }
}

interface DesiredRevision {
  id: string;
  profileId: string;
  number: number;
  spec: unknown;
  profile: { name: string };
}

/**
 * Each router's desired revision (with its profile's name) and assignment: two queries for the
 * whole batch, the revisions read once however many routers share them. Why: Prisma's findMany
 * with the same includes cost several times the CPU per batch; measured in
 * docs/BENCHMARKS.md#rollout-batch.
 */
export async function desiredStatesOf(db: PrismaClient, routerIds: string[]) {
  const rows = await db.$queryRaw<
    {
      id: string;
      desiredRolloutId: string | null;
      desiredRevisionId: string;
      assignedProfileId: string | null;
      overrides: unknown;
    }[]
  >`
    SELECT r.id, r."desiredRolloutId", r."desiredRevisionId", a."profileId" AS "assignedProfileId", a.overrides
      FROM "Router" r LEFT JOIN "Assignment" a ON a."routerId" = r.id
     WHERE r.id IN ${idRows(routerIds)}
       AND r."desiredRevisionId" IS NOT NULL`;
  if (rows.length === 0) return [];
  const revisions = await db.$queryRaw<(Omit<DesiredRevision, 'profile'> & { profileName: string })[]>`
    SELECT v.id, v."profileId", v.number, v.spec, p.name AS "profileName"
      FROM "ProfileRevision" v JOIN "Profile" p ON p.id = v."profileId"
     WHERE v.id IN ${idRows([...new Set(rows.map((r) => r.desiredRevisionId))])}`;
  const byId = new Map<string, DesiredRevision>(
    revisions.map(({ profileName, ...v }) => [v.id, { ...v, profile: { name: profileName } }]),
  );
  return rows.map((r) => ({
    id: r.id,
    desiredRolloutId: r.desiredRolloutId,
    desiredRevision: byId.get(r.desiredRevisionId),
    assignment: r.assignedProfileId === null ? null : { profileId: r.assignedProfileId, overrides: r.overrides },
  }));
}

/** Sent to the router before its current stream began, and no result stored since. */
function sentOnEarlierStream(target: { state: string; sentAt: Date | null }, sessionStartedAt: Date): boolean {
  return target.state === 'sent' && !!target.sentAt && target.sentAt < sessionStartedAt;
}
