import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AgentGateway, AgentSession } from '../agent-gateway/agent-gateway.js';
import type { ProfileSpec } from '../../core/profile-spec.js';
import { effectiveSpec } from '../fleet/plan-preview.js';

/**
 * Pushes each router's desired revision down its stream, on the replica that holds the
 * stream: when a rollout dispatches it (via the fleet bus) and whenever the agent
 * (re)connects running something else.
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

  /** `running`: what agents said they run; a router already on its desired revision is not sent it again. */
  async deliver(routerIds: string[], running?: Map<string, { profile: string; revision: number }>): Promise<void> {
    const here = routerIds.filter((id) => this.gateway.sessions.has(id));
    if (here.length === 0) return;
    // One query for the whole batch: a rollout batch of hundreds of routers must not cost
    // hundreds of round trips.
    const routers = await this.db.router.findMany({
      where: { id: { in: here } },
      select: { id: true, desiredRolloutId: true, desiredRevision: { include: { profile: true } }, assignment: true },
    });
    const specs = new Map<string, ProfileSpec | Error>();
    for (const router of routers) {
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
      session.send({
        $case: 'desiredState',
        value: {
          profile: revision.profile.name,
          revision: revision.number,
          spec: spec as unknown as { [key: string]: unknown },
          confirmWindowSeconds: spec.commitConfirm.windowSeconds,
          rolloutId: router.desiredRolloutId ?? '',
        },
      });
      this.sentOnStream.set(session, sentKey);
    }
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
    const behind = routers.filter((r) => r.desiredRevisionId !== r.appliedRevisionId);
    await this.deliver(behind.map((r) => r.id));
  }

  /** On connect: send the desired revision unless the agent says it already runs it. */
  async onConnected(routerId: string, applied: { profile: string; revision: number } | undefined): Promise<void> {
    await this.deliver([routerId], applied ? new Map([[routerId, applied]]) : undefined);
  }
}
