import { canonicalSelector, selectorWhere, type Selector } from '../fleet/selector.js';
import { RolloutRefused, storeRollout, type RolloutStore } from '../rollouts/rollout-create.js';
import { DEFAULT_STRATEGY, type Strategy } from '../rollouts/rollout-strategy.js';
import { DEFAULT_FIRMWARE_OPTIONS, knownTimeZone, type FirmwareOptions } from './firmware-options.js';
import { judgeRouters } from './fleet-fit.js';
import type { FirmwareMetadata } from '../../core/firmware/index.js';

export interface FirmwareRolloutRequest {
  /** The image's SHA-256. */
  image: string;
  options?: Partial<FirmwareOptions>;
  selector: Selector;
  strategy?: Partial<Strategy>;
  startAt?: Date;
}

/**
 * A rollout that carries a firmware image: the routers the selector matches that the image fits
 * (board, target, compat version, release order, judged now as sysupgrade would), in batches as
 * a profile rollout's; those it does not fit are left out (`skipped` in batch -1, the reason
 * named), never sent anything. Refused when the image fits none of them.
 */
export async function createFirmwareRollout(
  engine: RolloutStore,
  request: FirmwareRolloutRequest,
  ctx: { actor: string; requestId?: string },
) {
  const strategy: Strategy = { ...DEFAULT_STRATEGY, ...request.strategy };
  const options: FirmwareOptions = { ...DEFAULT_FIRMWARE_OPTIONS, ...request.options };
  if (options.window && !knownTimeZone(options.window.timeZone ?? 'UTC'))
    throw new RolloutRefused(`firmware.window.timeZone: ${options.window.timeZone} is not a known IANA time zone`);
  const selector = canonicalSelector(request.selector);
  const image = await engine.db.firmwareImage.findFirst({
    where: { sha256: request.image, readyAt: { not: null }, deletedAt: null },
  });
  if (!image) throw new RolloutRefused(`firmware.image: no firmware image ${request.image}`);
  const metadata = image.metadata as unknown as FirmwareMetadata;
  const routers: { id: string }[] = [];
  const leftOut: { routerId: string; reason: string }[] = [];
  let configReset = 0;
  for await (const page of judgeRouters(engine.db, metadata, selectorWhere(selector), options))
    for (const r of page) {
      if (r.verdict.fits) {
        routers.push({ id: r.id });
        if (r.verdict.configReset) configReset += 1;
      } else leftOut.push({ routerId: r.id, reason: r.verdict.refusals.map((x) => x.reason).join('; ') });
    }
  if (routers.length + leftOut.length === 0)
    throw new RolloutRefused('the selector matches no router (decommissioned routers are never targeted)');
  if (routers.length === 0)
    throw new RolloutRefused(
      `the image fits none of the ${leftOut.length} routers the selector matches: ${leftOut[0]!.reason}`,
    );
  return storeRollout(engine, {
    carries: { firmwareImageId: image.id, firmwareOptions: options as object },
    selector,
    strategy,
    routers,
    leftOut,
    leftOutBecause: 'the image does not fit it',
    startAt: request.startAt,
    ctx,
    after: {
      firmware: { image: image.sha256, fileName: image.fileName, release: image.release, revision: image.revision },
      options,
      selector,
      strategy,
      targets: routers.length,
      leftOut: leftOut.length,
      ...(configReset ? { configReset } : {}),
    },
  });
}
