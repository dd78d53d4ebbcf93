/**
 * Starting and cancelling commands: the command, its targets (queued, or refused with the
 * reason when the controller can tell up front) and the audit event commit in one
 * transaction, as a cancel and its event do; the dispatcher (command-dispatch.ts) does the rest.
 */
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { canonicalSelector, type Selector } from '../fleet/selector.js';
import type { CommandKind } from './command-kinds.js';
import type { CommandDispatcher } from './command-dispatch.js';
import { outcomeSummary } from './command-outcomes.js';
import { resolveTargets } from './command-targets.js';
import { bulkInsert, type ColumnType } from '../storage/bulk-insert.js';

export interface CommandRequest {
  kind: CommandKind;
  selector: Selector;
  /** Seconds a router that has the command may take to answer. */
  timeoutSeconds?: number;
  /** Seconds from now until the command ends for routers still offline. */
  deadlineSeconds?: number;
  maxInFlight?: number;
}

export const COMMAND_DEFAULTS = { timeoutSeconds: 60, deadlineSeconds: 600, maxInFlight: 100 } as const;

/** The request cannot become a command: the selector matches no router. */
export class CommandRefused extends Error {}
/** The state forbids it: the one router cannot take this command now, or the command is over. */
export class CommandConflict extends Error {}
export class CommandNotFound extends Error {}

type Ctx = { actor: string; requestId?: string };

/** A command's targets, all in one INSERT (bulkInsert). */
const COMMAND_TARGET_COLUMNS: Record<string, ColumnType> = {
  commandId: 'text',
  routerId: 'text',
  state: '"CommandTargetState"',
  reason: 'text',
  finishedAt: 'timestamptz',
  updatedAt: 'timestamptz',
};

export class CommandService {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
    private readonly dispatcher: CommandDispatcher,
  ) {}

  /**
   * A command for the routers the selector matches. With `single`, the selector names one router
   * and a refusal is a CommandConflict (no job) rather than a refused target.
   */
  async create(request: CommandRequest, ctx: Ctx, { single = false }: { single?: boolean } = {}) {
    const options = { ...COMMAND_DEFAULTS, ...stripUndefined(request) };
    const selector = canonicalSelector(request.selector);
    const targets = await resolveTargets(this.db, request.kind, selector);
    if (targets.length === 0)
      throw new CommandRefused('the selector matches no router (decommissioned routers are never targeted)');
    if (single && targets[0]!.state === 'refused')
      throw new CommandConflict(`${request.kind} refused: ${targets[0]!.reason}`);
    const deadline = new Date(Date.now() + options.deadlineSeconds * 1000);
    const refused = targets.filter((t) => t.state === 'refused').length;
    const job = await this.audit.record(async (tx) => {
      const created = await tx.command.create({
        data: {
          kind: request.kind,
          selector: selector as object,
          timeoutSeconds: options.timeoutSeconds,
          maxInFlight: options.maxInFlight,
          deadline,
          createdBy: ctx.actor,
        },
      });
      const now = new Date();
      await bulkInsert(
        tx,
        'CommandTarget',
        COMMAND_TARGET_COLUMNS,
        targets.map((t) => ({
          commandId: created.id,
          routerId: t.routerId,
          state: t.state,
          reason: t.reason,
          finishedAt: t.state === 'refused' ? now : null,
          updatedAt: now,
        })),
      );
      return {
        result: created,
        event: {
          actor: ctx.actor,
          action: 'command.created',
          targetType: 'command_job',
          targetId: created.id,
          after: {
            kind: request.kind,
            selector: selector,
            targets: targets.length,
            refused,
            timeoutSeconds: options.timeoutSeconds,
            maxInFlight: options.maxInFlight,
            deadline,
          },
          requestId: ctx.requestId,
        },
      };
    });
    await this.dispatcher.kick(job.id);
    return job;
  }

  /** Ends a running job: routers not sent the command yet are cancelled; ones that have it may still answer. */
  async cancel(commandId: string, ctx: Ctx): Promise<void> {
    await this.audit.record(async (tx) => {
      const before = await tx.command.findUnique({ where: { id: commandId }, select: { state: true } });
      if (!before) throw new CommandNotFound(`no command ${commandId}`);
      const { count } = await tx.command.updateMany({
        where: { id: commandId, state: 'running' },
        data: { state: 'cancelled', cancelledBy: ctx.actor, finishedAt: new Date() },
      });
      if (count === 0) throw new CommandConflict(`the command is ${before.state}; only a running one can be cancelled`);
      await tx.commandTarget.updateMany({
        where: { commandId, state: { in: ['queued', 'offline'] } },
        data: { state: 'cancelled', reason: `cancelled by ${ctx.actor}`, finishedAt: new Date() },
      });
      return {
        result: undefined,
        event: {
          actor: ctx.actor,
          action: 'command.cancelled',
          targetType: 'command_job',
          targetId: commandId,
          before: { state: before.state },
          after: { state: 'cancelled', ...(await outcomeSummary(tx, commandId)) },
          requestId: ctx.requestId,
        },
      };
    });
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
