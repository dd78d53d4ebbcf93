/**
 * Onboarding a router over SSH as a Job: connect and pin the host key, collect
 * facts with the agent's own code, work out (and optionally install) the packages the
 * plan needs, place the agent (on the router where Node.js runs, else the controller-hosted
 * proxy), then wait for its first Hello and, when it has a desired revision, its first
 * applied plan. Progress (step, percent, message) is written to the Job row, so any replica
 * can stream it; every step is audited with the requesting token's owner as actor.
 *
 * Secrets: the SSH password / key never enter Job.input, the audit history or a log line.
 * The API seals them with the controller's data key (AES-256-GCM, the same SecretBox as
 * RouterCredential) bound to the job id as authenticated data, and passes only that
 * ciphertext in the queue payload (process memory for the in-process runner, Redis for
 * BullMQ, removed on completion). The job opens it; a payload copied to another job does
 * not decrypt. For the proxy placement the credential then goes to RouterCredential
 * (sealed again, bound to the router id), which is what the proxy reads after a restart.
 *
 * Cancel and failure: every step that leaves something behind pushes an undo; a failed or
 * cancelled job runs them backwards (files and services it created: removed; the proxy
 * agent it started: stopped, its credential and key deleted). Packages it installed are
 * reported, not removed: removing kernel modules from a running router is riskier than
 * leaving them.
 */
import type { Logger } from 'pino';
import { concurrencyGate, type ConcurrencyGate } from '../../core/concurrency-gate.js';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ControllerSecurity } from '../auth/security.js';
import type { TaskQueue } from '../cluster/task-queue.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { ControllerProxies } from './controller-proxy.js';
import { OnboardingJob, secretAad, type OnboardingJobDeps } from './onboarding-job.js';
import type { OnboardingTargetPolicy } from './target-policy.js';
import type { OnboardingInput, OnboardingOptions, OnboardingSecret } from './onboarding-request.js';

/** The kind of an onboarding Job, and the name of the task that runs one. */
export const ONBOARDING_JOB_KIND = 'onboarding';
export const ONBOARDING_TASK = 'onboarding';

export type { OnboardingInput, OnboardingOptions, OnboardingSecret, StepName } from './onboarding-request.js';

export class OnboardingService {
  readonly proxies: ControllerProxies;
  /** Onboardings run at once in this process (options.concurrency, default 16). */
  private readonly limited: ConcurrencyGate;
  private readonly active = new Set<Promise<void>>();
  private closed = false;
  private readonly jobDeps: OnboardingJobDeps;

  constructor(
    private readonly deps: {
      db: PrismaClient;
      audit: AuditLog;
      tasks: TaskQueue;
      security: ControllerSecurity;
      box: SecretBox;
      grpcAddress: () => string;
      dataDir: string;
      log: Logger;
      /** Which hosts onboarding may connect to; checked by the API and again before the SSH connect. */
      targets: OnboardingTargetPolicy;
      options?: OnboardingOptions;
    },
  ) {
    this.limited = concurrencyGate(deps.options?.concurrency ?? 16);
    this.proxies = new ControllerProxies({
      db: deps.db,
      security: deps.security,
      grpcAddress: deps.grpcAddress,
      dataDir: deps.dataDir,
      log: deps.log,
      targets: deps.targets,
      agent: deps.options?.proxyAgent,
    });
    this.jobDeps = {
      db: deps.db,
      audit: deps.audit,
      security: deps.security,
      box: deps.box,
      grpcAddress: deps.grpcAddress,
      log: deps.log,
      proxies: this.proxies,
      targets: deps.targets,
      options: () => this.options,
      closing: () => this.closed,
    };
    deps.tasks.register(ONBOARDING_TASK, (data) => this.handle(data));
  }

  get targets(): OnboardingTargetPolicy {
    return this.deps.targets;
  }

  /** Mutable on purpose: tests set `beforeStep` on a running controller. */
  get options(): OnboardingOptions {
    return (this.deps.options ??= {});
  }

  /** Creates the Job row and queues it; the secret travels sealed in the queue payload only. */
  async create(
    input: OnboardingInput,
    secret: OnboardingSecret,
    actor: string,
    requestId?: string,
  ): Promise<{ id: string }> {
    // The Job row and its event commit together; the job is queued only once both are stored.
    const job = await this.deps.audit.record(async (tx) => {
      const row = await tx.job.create({
        data: { kind: ONBOARDING_JOB_KIND, input: input as object, createdBy: actor, message: 'queued' },
      });
      return {
        result: row,
        event: { actor, action: 'onboarding.requested', targetType: 'job', targetId: row.id, after: input, requestId },
      };
    });
    const sealed = this.deps.box.seal(JSON.stringify(secret), secretAad(job.id));
    await this.deps.tasks.enqueue(ONBOARDING_TASK, { jobId: job.id, sealed });
    return { id: job.id };
  }

  /** Asks a job to stop; a queued job is cancelled at once, a running one between steps. */
  async cancel(
    jobId: string,
    actor: string,
    requestId?: string,
  ): Promise<'cancelled' | 'requested' | 'finished' | null> {
    const job = await this.deps.db.job.findUnique({ where: { id: jobId } });
    if (!job) return null;
    if (job.state !== 'queued' && job.state !== 'running') return 'finished';
    // The request, the cancellation of a job still queued, and the event commit together.
    const cancelledQueued = await this.deps.audit.record(async (tx) => {
      await tx.job.update({ where: { id: jobId }, data: { cancelRequested: true } });
      const { count } = await tx.job.updateMany({
        where: { id: jobId, state: 'queued' },
        data: { state: 'cancelled', message: 'cancelled before it started', finishedAt: new Date() },
      });
      return {
        result: count > 0,
        event: { actor, action: 'onboarding.cancel_requested', targetType: 'job', targetId: jobId, requestId },
      };
    });
    return cancelledQueued ? 'cancelled' : 'requested';
  }

  /**
   * At controller start: resume proxy agents for stored credentials, and fail onboarding jobs
   * the in-process runner lost with the previous process (their sealed secret lived in its memory).
   */
  async start(): Promise<void> {
    if (this.deps.tasks.kind === 'in-process') {
      await this.deps.db.job.updateMany({
        where: { kind: ONBOARDING_JOB_KIND, state: { in: ['queued', 'running'] } },
        data: {
          state: 'failed',
          error: 'the controller restarted while this job was queued or running; run the onboarding again',
          finishedAt: new Date(),
        },
      });
    }
    await this.proxies.resume(async (routerId) => {
      const c = await this.deps.security.credentials.reveal(routerId);
      if (!c?.hostKeyFingerprint) return null;
      return {
        host: c.host,
        port: c.port,
        username: c.username,
        password: c.password,
        privateKey: c.privateKey,
        passphrase: c.passphrase,
        hostKeyFingerprint: c.hostKeyFingerprint,
      };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.active]);
    await this.proxies.close();
  }

  private async handle(data: Record<string, unknown>): Promise<void> {
    const jobId = String(data.jobId);
    const sealed = String(data.sealed);
    const work = this.limited(() => this.run(jobId, sealed));
    // The in-process runner runs one job at a time for everything (rollout sweeps included):
    // an onboarding that waits a minute for a Hello must not hold it, so it runs beside it,
    // bounded by `concurrency`. BullMQ workers are separate slots: hold the job there.
    if (this.deps.tasks.kind === 'in-process') {
      this.active.add(work);
      void work.finally(() => this.active.delete(work));
      return;
    }
    await work;
  }

  /** One job, start to end. Never throws: the outcome is the Job row. */
  async run(jobId: string, sealed: string): Promise<void> {
    const job = await OnboardingJob.claim(this.jobDeps, jobId);
    await job?.run(sealed);
  }
}
