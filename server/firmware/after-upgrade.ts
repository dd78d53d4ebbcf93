import type { Logger } from 'pino';
import { callBatcher } from '../../core/call-batcher.js';
import type { CommandService } from '../commands/command-service.js';

/**
 * After confirmed upgrades, the controller has the routers re-probe their capabilities and
 * re-apply their profile, so the datapath follows the new kernel (cls_bpf on 5.15, TCX on 6.6):
 * the reboot alone would put back the plan resolved for the old one. Routers confirmed close
 * together share one reprobe and one reapply command, audited with the system as actor; a
 * router with nothing applied has its reapply refused, which changes nothing.
 */
export function afterUpgradeCommands(commands: CommandService, log: Logger): (routerIds: string[]) => Promise<void> {
  const batch = callBatcher<string, void>(
    async (routerIds) => {
      const ids = [...new Set(routerIds)];
      for (const kind of ['reprobe', 'reapply'] as const)
        await commands
          .create({ kind, selector: { ids } }, { actor: 'system' })
          .catch((err: unknown) => log.warn({ err, kind, routers: ids.length }, 'after-upgrade command not created'));
      return ids.map(() => undefined);
    },
    { windowMs: 2_000, maxBatch: 500 },
  );
  return async (routerIds) => {
    await Promise.all(routerIds.map((id) => batch(id)));
  };
}
