/**
 * Moves commands forward, as a task (TaskQueue) so any replica may run it and a restarted
 * one resumes: per-router timeouts, offline routers (reported as offline, given the command if
 * they come back before the deadline), at most maxInFlight routers with the command at once,
 * and the end of the command, audited in the transaction that ends it. The replica holding a
 * router's stream sends the command (command-delivery.ts), told over the fleet bus.
 */
import { callBatcher } from '../../core/call-batcher.js';
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { FleetBus } from '../cluster/fleet-bus.js';
import type { TaskQueue } from '../cluster/task-queue.js';
import { outcomeSummary } from './command-outcomes.js';

export const COMMAND_ADVANCE_TASK = 'command.advance';
export const COMMAND_SWEEP_TASK = 'command.sweep';

/** Two-key advisory lock class for "one advance of this command at a time" ("wfcm"). */
const ADVANCE_LOCK_CLASS = 0x7766636d;

export const OFFLINE_REASON = 'offline: gets the command if it connects before the deadline';

export class CommandDispatcher {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
    private readonly tasks: TaskQueue,
    private readonly bus: FleetBus,
    private readonly log: Logger,
  ) {
    tasks.register(COMMAND_ADVANCE_TASK, async (data) => this.advance(String(data.commandId)));
    tasks.register(COMMAND_SWEEP_TASK, async () => this.sweep());
  }

  /** Asks for an advance of the command now (coalesced: a waiting one absorbs this). */
  async kick(commandId: string): Promise<void> {
    await this.tasks.enqueue(COMMAND_ADVANCE_TASK, { commandId }, { coalesceKey: commandId });
  }

  /** An advance at `at`, for a timeout or the deadline; one per command and second. */
  private async at(commandId: string, at: Date): Promise<void> {
    const delayMs = Math.max(0, at.getTime() - Date.now()) + 50;
    const second = Math.ceil(at.getTime() / 1000);
    await this.tasks.enqueue(COMMAND_ADVANCE_TASK, { commandId }, { coalesceKey: `${commandId}@${second}`, delayMs });
  }

  /** The safety net for lost tasks and timers: every command that can still change is advanced. */
  async sweep(): Promise<void> {
    const jobs = await this.db.command.findMany({
      where: { OR: [{ state: 'running' }, { state: 'cancelled', targets: { some: { state: 'sent' } } }] },
      select: { id: true },
    });
    for (const j of jobs) await this.advance(j.id);
  }

  /** One idempotent step of a command; replicas may run it at once (the dispatch takes a lock per command). */
  async advance(commandId: string): Promise<void> {
    const job = await this.db.command.findUnique({ where: { id: commandId } });
    if (!job) return;
    const now = new Date();
    // A cancelled command's routers that already have the command still answer or time out.
    await this.db.commandTarget.updateMany({
      where: { commandId, state: 'sent', sentAt: { lt: new Date(now.getTime() - job.timeoutSeconds * 1000) } },
      data: { state: 'timed_out', reason: `no answer within ${job.timeoutSeconds} s`, finishedAt: now },
    });
    if (job.state !== 'running') return;
    const pastDeadline = job.deadline.getTime() <= now.getTime();
    if (pastDeadline) {
      await this.db.commandTarget.updateMany({
        where: { commandId, state: 'queued' },
        data: {
          state: 'timed_out',
          reason: 'the command reached its deadline before the command was sent',
          finishedAt: now,
        },
      });
    } else {
      // Back online (on any replica): queued again. Gone: offline, waiting for the deadline.
      await this.db.commandTarget.updateMany({
        where: { commandId, state: 'offline', router: { status: 'online' } },
        data: { state: 'queued', reason: null },
      });
      await this.db.commandTarget.updateMany({
        where: { commandId, state: 'queued', router: { status: { not: 'online' } } },
        data: { state: 'offline', reason: OFFLINE_REASON },
      });
      const sent = await this.dispatch(commandId, job.maxInFlight, now);
      if (sent.length) {
        await this.bus.publishCommands({ commandId, routerIds: sent });
        await this.at(commandId, new Date(now.getTime() + job.timeoutSeconds * 1000));
      }
    }
    await this.finishIfDone(commandId, pastDeadline, job.deadline);
  }

  /**
   * Marks up to the free in-flight slots of queued targets sent and returns their routers.
   * Under the command's advisory lock, so two replicas never fill the same slots twice.
   */
  private dispatch(commandId: string, maxInFlight: number, now: Date): Promise<string[]> {
    return this.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ADVANCE_LOCK_CLASS}::int4, hashtext(${commandId}))`;
      const inFlight = await tx.commandTarget.count({ where: { commandId, state: 'sent' } });
      const room = maxInFlight - inFlight;
      if (room <= 0) return [];
      const rows = await tx.$queryRaw<{ routerId: string }[]>`
        UPDATE "CommandTarget" SET state = 'sent', "sentAt" = ${now}, "updatedAt" = ${now}
        WHERE "commandId" = ${commandId} AND "routerId" IN (
          SELECT "routerId" FROM "CommandTarget" WHERE "commandId" = ${commandId} AND state = 'queued'
          ORDER BY "routerId" LIMIT ${room})
        RETURNING "routerId"`;
      return rows.map((r) => r.routerId);
    });
  }

  /**
   * Ends the command once nothing is open: no router queued or with the command, and (before the
   * deadline) none offline that might still come back. The UPDATE re-checks that in the same
   * statement, and its audit event commits with it.
   */
  private async finishIfDone(commandId: string, pastDeadline: boolean, deadline: Date): Promise<void> {
    const open = pastDeadline ? (['queued', 'sent'] as const) : (['queued', 'sent', 'offline'] as const);
    const finished = await this.audit.record(async (tx) => {
      const { count } = await tx.command.updateMany({
        where: { id: commandId, state: 'running', targets: { none: { state: { in: [...open] } } } },
        data: { state: 'completed', finishedAt: new Date() },
      });
      if (count === 0) return { result: false, event: null };
      return {
        result: true,
        event: {
          actor: 'system',
          action: 'command.completed',
          targetType: 'command_job',
          targetId: commandId,
          after: await outcomeSummary(tx, commandId),
        },
      };
    });
    if (finished) {
      this.log.info({ commandId }, 'command completed');
      return;
    }
    // Only offline routers left: look again at the deadline (the sweep would, later).
    if (!pastDeadline) {
      const waiting = await this.db.commandTarget.count({ where: { commandId, state: { in: ['queued', 'sent'] } } });
      if (waiting === 0) await this.at(commandId, deadline);
    }
  }

  /** A router connected (to this replica): its offline targets of running jobs are queued again. */
  onConnected(routerId: string): Promise<void> {
    return this.connected(routerId);
  }

  /** Routers connecting together are looked up together: one query per batch of streams. */
  private readonly connected = callBatcher(
    async (routerIds: string[]) => {
      const waiting = await this.db.commandTarget.findMany({
        where: {
          routerId: { in: [...new Set(routerIds)] },
          state: 'offline',
          command: { state: 'running', deadline: { gt: new Date() } },
        },
        select: { commandId: true, routerId: true },
      });
      if (waiting.length > 0) {
        for (const w of waiting)
          await this.db.commandTarget.updateMany({
            where: { routerId: w.routerId, commandId: w.commandId, state: 'offline' },
            data: { state: 'queued', reason: null },
          });
        for (const commandId of new Set(waiting.map((w) => w.commandId))) await this.kick(commandId);
      }
      return routerIds.map(() => undefined);
    },
    { windowMs: 20, maxBatch: 500 },
  );
}
