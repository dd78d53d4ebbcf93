/**
 * What one onboarding job writes about itself: its progress on the Job row (which any replica
 * can stream), an audit event per step with the requesting token's owner as actor, and its end
 * with the result. It also reads the row for a cancel request between steps and while waiting.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog, AuditTransaction } from '../audit/audit-log.js';
import { Cancelled } from './job-failure.js';
import type { StepName } from './onboarding-request.js';

export interface JobRecordDeps {
  db: PrismaClient;
  audit: AuditLog;
  log: Logger;
  /** True once the controller is shutting down: a running job stops at its next step. */
  closing: () => boolean;
}

export class JobRecord {
  constructor(
    private readonly deps: JobRecordDeps,
    readonly jobId: string,
    readonly actor: string,
  ) {}

  async progress(step: StepName, percent: number, message: string): Promise<void> {
    await this.deps.db.job.update({ where: { id: this.jobId }, data: { step, percent, message } });
  }

  /** Throws Cancelled when a cancel was requested or the controller is shutting down. */
  async checkCancel(): Promise<void> {
    const job = await this.deps.db.job.findUnique({ where: { id: this.jobId }, select: { cancelRequested: true } });
    if (job?.cancelRequested || this.deps.closing())
      throw new Cancelled(this.deps.closing() ? 'the controller is shutting down' : 'cancelled on request');
  }

  /**
   * A step's event, committed together with the database writes the step makes (`alongside`,
   * e.g. the router's tags and the stored credential at the first Hello), or not at all.
   */
  async audit(action: string, after?: unknown, alongside?: (tx: AuditTransaction) => Promise<void>): Promise<void> {
    await this.deps.audit.record(async (tx) => {
      await alongside?.(tx);
      return {
        result: undefined,
        event: { actor: this.actor, action: `onboarding.${action}`, targetType: 'job', targetId: this.jobId, after },
      };
    });
  }

  /** Polls `check` until it answers or `timeoutMs` passes (null), checking for a cancel each time. */
  async waitFor<T>(timeoutMs: number, check: () => Promise<T | null>): Promise<T | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Cancel first: a cancel that arrives while we wait wins over a Hello that lands at the same time.
      await this.checkCancel();
      const v = await check();
      if (v) return v;
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * Ends the job: state, message (the error unless it succeeded) and result on the row, then its
   * audit event. A failed or cancelled job keeps the step and percent it stopped at, so the
   * operator sees where it went wrong; only a success moves on to "done".
   */
  async finish(
    state: 'succeeded' | 'failed' | 'cancelled',
    message: string,
    result: Record<string, unknown>,
  ): Promise<void> {
    await this.audit(
      state,
      { message, routerId: result.routerId ?? null, placement: result.placement ?? null },
      async (tx) => {
        await tx.job.update({
          where: { id: this.jobId },
          data: {
            state,
            ...(state === 'succeeded' ? { step: 'done', percent: 100 } : {}),
            message,
            error: state === 'succeeded' ? null : message,
            result: result as object,
            finishedAt: new Date(),
          },
        });
      },
    );
    this.deps.log.info({ jobId: this.jobId, state, message }, 'onboarding finished');
  }
}
