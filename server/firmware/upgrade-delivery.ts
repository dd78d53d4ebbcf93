/**
 * The replica-local half of a firmware upgrade: the replica holding a router's stream sends it
 * the upgrade (told over the fleet bus by whichever replica dispatched the batch), and hands the
 * router's progress reports and its Hello after a reboot to the rollout's steps.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { Hello } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { AgentGateway } from '../agent-gateway/agent-gateway.js';
import type { UpgradeDeliveryMessage } from '../cluster/fleet-bus.js';
import { firmwareOptionsOf } from './firmware-options.js';
import type { FirmwareRollouts } from './firmware-rollouts.js';

export class UpgradeDelivery {
  constructor(
    private readonly db: PrismaClient,
    private readonly gateway: AgentGateway,
    private readonly rollouts: FirmwareRollouts,
    private readonly log: Logger,
  ) {}

  /** Sends the rollout's upgrade to those of the routers whose stream is on this replica. */
  async deliver({ rolloutId, routerIds }: UpgradeDeliveryMessage): Promise<void> {
    const here = routerIds.filter((id) => this.gateway.sessions.has(id));
    if (here.length === 0) return;
    const rollout = await this.db.rollout.findUnique({
      where: { id: rolloutId },
      select: { firmwareOptions: true, firmwareImage: true },
    });
    const image = rollout?.firmwareImage;
    if (!image?.sha256) return;
    const options = firmwareOptionsOf(rollout!.firmwareOptions);
    const value = {
      upgradeId: rolloutId,
      sha256: image.sha256,
      sizeBytes: Number(image.sizeBytes),
      keepConfig: options.keepConfig,
      release: image.release ?? '',
      revision: image.revision ?? '',
    };
    for (const routerId of here) this.gateway.sessions.get(routerId)?.send({ $case: 'firmwareUpgrade', value });
    this.log.debug({ rolloutId, routers: here.length }, 'firmware upgrade sent');
  }

  /** A router connected: its Hello may confirm an upgrade, or it reconnected mid-upgrade and gets it again. */
  async onConnected(routerId: string, hello: Hello): Promise<void> {
    const { resend } = await this.rollouts.onHello({
      routerId,
      identity: hello.router?.identity ?? '',
      bootId: hello.bootId,
      release: hello.facts?.openwrt?.release ?? '',
      revision: hello.facts?.openwrt?.revision ?? '',
    });
    if (resend) await this.deliver({ rolloutId: resend, routerIds: [routerId] });
  }
}
