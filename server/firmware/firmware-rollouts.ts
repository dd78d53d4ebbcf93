import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { FirmwareProgress_Step, type FirmwareProgress } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';
import type { AuditEntry, AuditLog } from '../audit/audit-log.js';
import type { FleetBus } from '../cluster/fleet-bus.js';
import { boundChars } from '../../core/bounded-text.js';
import { idRows } from '../storage/id-rows.js';
import type { FirmwareOptions } from './firmware-options.js';

/** The longest detail kept from a router's progress report (FirmwareProgress.detail's bound). */
const DETAIL_MAX_CHARS = 1024;

export const STEP_NAMES = {
  [FirmwareProgress_Step.STEP_CHECKING]: 'checking',
  [FirmwareProgress_Step.STEP_TRANSFERRING]: 'transferring',
  [FirmwareProgress_Step.STEP_VERIFYING]: 'verifying',
  [FirmwareProgress_Step.STEP_TESTING]: 'testing',
  [FirmwareProgress_Step.STEP_FLASHING]: 'flashing',
} as const;
export type FirmwareStepName = (typeof STEP_NAMES)[keyof typeof STEP_NAMES];

/** What a router says of itself in the Hello after an upgrade. */
export interface ReturnedRouter {
  routerId: string;
  identity: string;
  bootId: string;
  release: string;
  revision: string;
}

export interface FirmwareRolloutDeps {
  db: PrismaClient;
  audit: AuditLog;
  bus: FleetBus;
  log: Logger;
  /** Queues the rollout's next step (RolloutEngine.kick). */
  kick: (rolloutId: string) => Promise<void>;
  /** After confirmed upgrades: re-probe and re-apply those routers (server/firmware/after-upgrade.ts). */
  afterUpgrade: (routerIds: string[]) => Promise<void>;
}

const agentActor = (identity: string) => `agent:${identity}`;

/**
 * The steps of a rollout that carries a firmware image, as the rollout engine runs them: send a
 * batch its upgrade, follow each router's progress, and decide each router's outcome. A router is
 * `upgraded` only when it comes back, a Hello with another boot id and the image's release and
 * revision; back on the old release it `failed`; not back within the deadline it is `unconfirmed`.
 * Every move is a conditional UPDATE on the state it expects, as the engine's.
 */
export class FirmwareRollouts {
  constructor(private readonly deps: FirmwareRolloutDeps) {}

  /**
   * Claims a batch's queued targets: online routers become `sent` with the boot id and release
   * they have now (an upgrade is confirmed against them), the others `skipped`. Then the replicas
   * holding the sent routers' streams send them the upgrade. Returns how many were sent.
   */
  async dispatch(rolloutId: string, routers: { id: string; status: string; decommissionedAt: Date | null }[]) {
    const { db, bus, log } = this.deps;
    const online = routers.filter((r) => r.status === 'online' && !r.decommissionedAt).map((r) => r.id);
    const offline = routers.filter((r) => !online.includes(r.id)).map((r) => r.id);
    const now = new Date();
    const sent = online.length
      ? await db.$queryRaw<{ routerId: string }[]>`
          UPDATE "RolloutTarget" AS t
             SET state = 'sent', "sentAt" = ${now}::timestamptz, "stepAt" = ${now}::timestamptz,
                 "bootIdBefore" = r."bootId", "releaseBefore" = r."openwrtRelease", "updatedAt" = ${now}::timestamptz
            FROM "Router" r
           WHERE t."rolloutId" = ${rolloutId} AND t."routerId" = r.id AND t.state = 'queued'
             AND r.id IN ${idRows(online)}
          RETURNING t."routerId"`
      : [];
    if (offline.length)
      await db.rolloutTarget.updateMany({
        where: { rolloutId, state: 'queued', routerId: { in: offline } },
        data: { state: 'skipped', error: 'offline when its batch started: not upgraded', finishedAt: now },
      });
    const ids = sent.map((t) => t.routerId);
    await bus.publishUpgrades({ rolloutId, routerIds: ids });
    if (ids.length || offline.length)
      log.info({ rolloutId, sent: ids.length, offline: offline.length }, 'upgrade batch sent');
    return ids.length;
  }

  /** Deadlines: no progress before the flash -> failed; flashed and not back -> unconfirmed. */
  async expire(rolloutId: string, options: FirmwareOptions): Promise<void> {
    const { db } = this.deps;
    const now = Date.now();
    const stalled = new Date(now - options.stepTimeoutSeconds * 1000);
    const gone = new Date(now - options.confirmTimeoutSeconds * 1000);
    const finishedAt = new Date(now);
    const failed = await db.rolloutTarget.updateManyAndReturn({
      where: {
        rolloutId,
        state: 'sent',
        OR: [{ firmwareStep: null }, { firmwareStep: { not: 'flashing' } }],
        stepAt: { lt: stalled },
      },
      data: {
        state: 'failed',
        error: `no progress from the router for ${options.stepTimeoutSeconds} s before flashing: not flashed`,
        finishedAt,
      },
      select: { routerId: true, firmwareStep: true },
    });
    const unconfirmed = await db.rolloutTarget.updateManyAndReturn({
      where: { rolloutId, state: 'sent', firmwareStep: 'flashing', flashedAt: { lt: gone } },
      data: {
        state: 'unconfirmed',
        error:
          `started flashing and did not come back within ${options.confirmTimeoutSeconds} s ` +
          '(no Hello with a new boot id): its state is unknown',
        finishedAt,
      },
      select: { routerId: true },
    });
    const events: AuditEntry[] = [
      ...failed.map((t) => this.outcomeEvent(rolloutId, t.routerId, 'firmware.failed', { step: t.firmwareStep })),
      ...unconfirmed.map((t) => this.outcomeEvent(rolloutId, t.routerId, 'firmware.unconfirmed', {})),
    ];
    if (events.length) await this.deps.audit.record(async () => ({ result: null, event: events }));
  }

  private outcomeEvent(rolloutId: string, routerId: string, action: string, after: object): AuditEntry {
    return {
      actor: 'system',
      action,
      targetType: 'router',
      targetId: routerId,
      after: { rollout: rolloutId, ...after },
    };
  }

  /**
   * A router reported where its upgrade stands. A new step is audited with the agent as actor; a
   * failed step finishes the target; the flash starts the wait for the router's return.
   */
  async recordProgress(routerId: string, identity: string, progress: FirmwareProgress): Promise<void> {
    const step = STEP_NAMES[progress.step as keyof typeof STEP_NAMES] as FirmwareStepName | undefined;
    if (!step || !progress.upgradeId || progress.upgradeId.length > 64) return;
    const detail = boundChars(progress.detail.replaceAll('\u0000', ''), DETAIL_MAX_CHARS) || null;
    const now = new Date();
    const rolloutId = progress.upgradeId;
    // Most reports are a transfer's bytes, the step unchanged: a plain conditional UPDATE, outside
    // the audit's serialized appends (a batch of transfers would otherwise queue behind them and
    // hold the connections the downloads read the image with).
    if (!progress.failed) {
      const { count } = await this.deps.db.rolloutTarget.updateMany({
        where: { rolloutId, routerId, state: 'sent', firmwareStep: step },
        data: {
          stepAt: now,
          ...(detail ? { stepDetail: detail } : {}),
          ...(progress.bytesDone ? { bytesDone: BigInt(progress.bytesDone) } : {}),
        },
      });
      if (count > 0) return;
    }
    const moved = await this.deps.audit.record(async (tx) => {
      const target = await tx.rolloutTarget.findUnique({
        where: { rolloutId_routerId: { rolloutId, routerId } },
        select: { state: true, firmwareStep: true, rollout: { select: { firmwareImageId: true } } },
      });
      if (!target || target.state !== 'sent' || !target.rollout.firmwareImageId) return { result: false, event: null };
      const newStep = target.firmwareStep !== step;
      await tx.rolloutTarget.update({
        where: { rolloutId_routerId: { rolloutId, routerId } },
        data: {
          firmwareStep: step,
          stepAt: now,
          stepDetail: detail,
          bytesDone: progress.bytesDone ? BigInt(progress.bytesDone) : undefined,
          // The first report of the flash starts the wait for the router's return; a repeat does not move it.
          ...(step === 'flashing' && !progress.failed && newStep ? { flashedAt: now } : {}),
          ...(progress.failed
            ? { state: 'failed', error: `${step}: ${detail ?? 'the router reported a failure'}`, finishedAt: now }
            : {}),
        },
      });
      if (!newStep && !progress.failed) return { result: false, event: null };
      return {
        result: progress.failed,
        event: {
          actor: agentActor(identity),
          action: progress.failed ? 'firmware.failed' : `firmware.${step}`,
          targetType: 'router',
          targetId: routerId,
          after: { rollout: rolloutId, step, ...(detail ? { detail } : {}) },
        },
      };
    });
    if (moved) await this.deps.kick(rolloutId);
  }

  /**
   * A router connected: if it was upgrading, its Hello decides. Another boot id than before the
   * upgrade: the image's release and revision make it `upgraded`, anything else `failed` (the
   * bootloader fell back, or the flash was refused). The same boot id: the agent reconnected
   * without a reboot, and the upgrade goes on (true: send it again, the agent ignores a copy).
   */
  async onHello(returned: ReturnedRouter): Promise<{ resend: string | null }> {
    const { db, audit } = this.deps;
    const target = await db.rolloutTarget.findFirst({
      where: { routerId: returned.routerId, state: 'sent', rollout: { firmwareImageId: { not: null } } },
      select: {
        rolloutId: true,
        bootIdBefore: true,
        releaseBefore: true,
        firmwareStep: true,
        rollout: { select: { firmwareImage: { select: { release: true, revision: true } } } },
      },
    });
    if (!target) return { resend: null };
    const image = target.rollout.firmwareImage!;
    const rebooted = returned.bootId !== '' && returned.bootId !== target.bootIdBefore;
    if (!rebooted) return { resend: target.firmwareStep === 'flashing' ? null : target.rolloutId };
    const onImage = returned.release === image.release && returned.revision === image.revision;
    const came = `${returned.release || 'an unknown release'}${returned.revision ? ` (${returned.revision})` : ''}`;
    const error = onImage
      ? null
      : target.firmwareStep === 'flashing'
        ? `came back on ${came}, not the image's ${image.release} (${image.revision}): the bootloader fell back or the flash was refused`
        : `rebooted during step ${target.firmwareStep ?? 'sent'} and came back on ${came}: not flashed`;
    const state = onImage ? 'upgraded' : 'failed';
    const moved = await audit.record(async (tx) => {
      const { count } = await tx.rolloutTarget.updateMany({
        where: { rolloutId: target.rolloutId, routerId: returned.routerId, state: 'sent' },
        data: { state, error, finishedAt: new Date() },
      });
      if (count === 0) return { result: false, event: null };
      return {
        result: true,
        event: {
          actor: agentActor(returned.identity),
          action: onImage ? 'firmware.upgraded' : 'firmware.failed',
          targetType: 'router',
          targetId: returned.routerId,
          before: { release: target.releaseBefore, bootId: target.bootIdBefore },
          after: {
            rollout: target.rolloutId,
            release: returned.release,
            revision: returned.revision,
            bootId: returned.bootId,
            ...(error ? { error } : {}),
          },
        },
      };
    });
    if (!moved) return { resend: null };
    this.deps.log.info({ routerId: returned.routerId, rolloutId: target.rolloutId, state }, 'firmware upgrade decided');
    // Not awaited: routers confirmed close together share the commands (after-upgrade.ts).
    if (onImage)
      this.deps
        .afterUpgrade([returned.routerId])
        .catch((err: unknown) => this.deps.log.warn({ err }, 'after-upgrade re-probe and re-apply not started'));
    await this.deps.kick(target.rolloutId);
    return { resend: null };
  }

  /**
   * A cancel stops the transfers not finished yet: those routers' targets are skipped (their
   * downloads are refused from now on); a router already verifying, testing or flashing goes on.
   */
  async stopTransfers(tx: Parameters<Parameters<AuditLog['record']>[0]>[0], rolloutId: string, finishedAt: Date) {
    const { count } = await tx.rolloutTarget.updateMany({
      where: {
        rolloutId,
        state: 'sent',
        OR: [{ firmwareStep: null }, { firmwareStep: { in: ['checking', 'transferring'] } }],
      },
      data: { state: 'skipped', error: 'rollout cancelled before the image was on the router', finishedAt },
    });
    return count;
  }
}
