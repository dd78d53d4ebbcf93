import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AgentGateway } from '../agent-gateway/agent-gateway.js';
import { PlanPreview } from '../fleet/plan-preview.js';

/**
 * Pushes each router's desired revision down its stream, on the replica that holds the
 * stream: when a rollout dispatches it (via the fleet bus) and whenever the agent
 * (re)connects running something else.
 */
export class DesiredStateDelivery {
  private readonly previews: PlanPreview;

  constructor(
    private readonly db: PrismaClient,
    private readonly gateway: AgentGateway,
    private readonly log: Logger,
  ) {
    this.previews = new PlanPreview(db);
  }

  async deliver(routerIds: string[]): Promise<void> {
    for (const routerId of routerIds) {
      const session = this.gateway.sessions.get(routerId);
      if (!session) continue;
      try {
        const desired = await this.desiredFor(routerId);
        if (desired) session.send({ $case: 'desiredState', value: desired });
      } catch (err) {
        this.log.error({ err, routerId }, 'could not deliver desired state');
      }
    }
  }

  /** On connect: send the desired revision unless the agent says it already runs it. */
  async onConnected(routerId: string, applied: { profile: string; revision: number } | undefined): Promise<void> {
    const router = await this.db.router.findUnique({ where: { id: routerId }, include: { desiredRevision: { include: { profile: true } } } });
    const desired = router?.desiredRevision;
    if (!desired) return;
    if (applied && applied.profile === desired.profile.name && applied.revision === desired.number) return;
    await this.deliver([routerId]);
  }

  private async desiredFor(routerId: string) {
    const router = await this.db.router.findUnique({ where: { id: routerId }, include: { desiredRevision: { include: { profile: true } } } });
    const revision = router?.desiredRevision;
    if (!revision) return null;
    const effective = await this.previews.effectiveProfile(routerId, { profile: revision.profile.name, revision: revision.number });
    if (!effective) return null;
    return {
      profile: effective.profile,
      revision: effective.revision,
      spec: effective.spec as unknown as { [key: string]: unknown },
      confirmWindowSeconds: effective.spec.commitConfirm.windowSeconds,
      rolloutId: router!.desiredRolloutId ?? '',
    };
  }
}
