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
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { predictCapabilities } from '../../core/capabilities.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import { shellQuote, SshError, SshHost, normalizeFingerprint } from '../../core/host/ssh-host.js';
import { concurrencyGate, type ConcurrencyGate } from '../../core/concurrency-gate.js';
import { AGENT_ENTRY_FILE, OLD_AGENT_ENTRY_FILE, tcxHelperBinaryFor } from '../../agent/index.js';
import { deriveRouterIdentity } from '../../core/identity.js';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { ControllerSecurity } from '../auth/security.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { ControllerProxies } from './controller-proxy.js';
import { installPackages, PackageError, planPackages, type PackagePlan } from './packages.js';

export const ONBOARDING_JOB = 'onboarding';

export type Placement = 'auto' | 'on-router' | 'proxy';

/** What is stored in Job.input: everything the operator asked for, except the secret. */
export interface OnboardingInput {
  host: string;
  port: number;
  user: string;
  authType: 'password' | 'privateKey';
  hostKeyFingerprint?: string;
  tags: string[];
  placement: Placement;
  install: boolean;
  /** Explicit identity / name; derived from the hardware otherwise (agent/identity.ts). */
  identity?: string;
  name?: string;
}

export interface OnboardingSecret {
  password?: string;
  privateKey?: string;
  passphrase?: string;
}

export type StepName = 'connect' | 'facts' | 'packages' | 'placement' | 'hello' | 'plan' | 'done';

export interface OnboardingOptions {
  /** Where `npm run agent:bundle` wrote the agent (default dist/agent). */
  bundleDir?: string;
  /** host:port an on-router agent dials (default: the gRPC address as bound). */
  agentControllerAddress?: string;
  /** Install root on the router for the on-router placement (tests: a scratch directory). */
  onRouterPrefix?: string;
  helloTimeoutMs?: number;
  planTimeoutMs?: number;
  /** Onboarding jobs running at once in this process (in-process runner). */
  concurrency?: number;
  sshConnectTimeoutMs?: number;
  /** Test hook: runs before each step (e.g. to make the router vanish mid-job). */
  beforeStep?: (jobId: string, step: StepName) => Promise<void> | void;
  /** Overrides for every controller-hosted proxy agent. */
  proxyAgent?: ConstructorParameters<typeof ControllerProxies>[0]['agent'];
}

class Cancelled extends Error {}

/** Failure with a message for the operator (never a secret: messages are built from non-secret fields). */
class StepFailure extends Error {}

interface Undo {
  what: string;
  run: () => Promise<void>;
}

const aad = (jobId: string) => `onboarding-job:${jobId}`;

export class OnboardingService {
  readonly proxies: ControllerProxies;
  /** Onboardings run at once in this process (options.concurrency, default 16). */
  private readonly limited: ConcurrencyGate;
  private readonly active = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly deps: {
      db: PrismaClient;
      audit: AuditLog;
      jobs: JobRunner;
      security: ControllerSecurity;
      box: SecretBox;
      grpcAddress: () => string;
      dataDir: string;
      log: Logger;
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
      agent: deps.options?.proxyAgent,
    });
    deps.jobs.register(ONBOARDING_JOB, (data) => this.handle(data));
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
    const job = await this.deps.db.job.create({
      data: { kind: ONBOARDING_JOB, input: input as object, createdBy: actor, message: 'queued' },
    });
    await this.deps.audit.append({
      actor,
      action: 'onboarding.requested',
      targetType: 'job',
      targetId: job.id,
      after: input,
      requestId,
    });
    const sealed = this.deps.box.seal(JSON.stringify(secret), aad(job.id));
    await this.deps.jobs.enqueue(ONBOARDING_JOB, { jobId: job.id, sealed });
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
    await this.deps.db.job.update({ where: { id: jobId }, data: { cancelRequested: true } });
    await this.deps.audit.append({
      actor,
      action: 'onboarding.cancel_requested',
      targetType: 'job',
      targetId: jobId,
      requestId,
    });
    const { count } = await this.deps.db.job.updateMany({
      where: { id: jobId, state: 'queued' },
      data: { state: 'cancelled', message: 'cancelled before it started', finishedAt: new Date() },
    });
    return count > 0 ? 'cancelled' : 'requested';
  }

  /**
   * At controller start: resume proxy agents for stored credentials, and fail onboarding jobs
   * the in-process runner lost with the previous process (their sealed secret lived in its memory).
   */
  async start(): Promise<void> {
    if (this.deps.jobs.kind === 'in-process') {
      await this.deps.db.job.updateMany({
        where: { kind: ONBOARDING_JOB, state: { in: ['queued', 'running'] } },
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
    if (this.deps.jobs.kind === 'in-process') {
      this.active.add(work);
      void work.finally(() => this.active.delete(work));
      return;
    }
    await work;
  }

  private async progress(jobId: string, step: StepName, percent: number, message: string): Promise<void> {
    await this.deps.db.job.update({ where: { id: jobId }, data: { step, percent, message } });
  }

  private async checkCancel(jobId: string): Promise<void> {
    const job = await this.deps.db.job.findUnique({ where: { id: jobId }, select: { cancelRequested: true } });
    if (job?.cancelRequested || this.closed)
      throw new Cancelled(this.closed ? 'the controller is shutting down' : 'cancelled on request');
  }

  /** One job, start to end. Never throws: the outcome is the Job row. */
  async run(jobId: string, sealed: string): Promise<void> {
    const { db, audit } = this.deps;
    const claimed = await db.job.updateMany({
      where: { id: jobId, state: 'queued' },
      data: { state: 'running', step: 'connect', percent: 0, message: 'starting' },
    });
    if (claimed.count === 0) return; // cancelled while queued, or another worker has it
    const job = (await db.job.findUnique({ where: { id: jobId } }))!;
    const input = job.input as unknown as OnboardingInput;
    const actor = job.createdBy;
    const undo: Undo[] = [];
    const result: Record<string, unknown> = {};
    const auditStep = (action: string, after?: unknown) =>
      audit.append({ actor, action: `onboarding.${action}`, targetType: 'job', targetId: jobId, after });
    let secret: OnboardingSecret;
    try {
      secret = JSON.parse(this.deps.box.open(sealed, aad(jobId))) as OnboardingSecret;
    } catch {
      await this.finish(
        jobId,
        'failed',
        'the sealed SSH credential for this job cannot be opened (data key changed?)',
        result,
        actor,
      );
      return;
    }
    let ssh: SshHost | undefined;
    let step: StepName = 'connect';
    const enter = async (s: StepName, percent: number, message: string) => {
      await this.checkCancel(jobId);
      step = s;
      await this.options.beforeStep?.(jobId, s);
      await this.progress(jobId, s, percent, message);
    };
    try {
      // 1. Connect, pin the host key.
      await enter('connect', 5, `connecting to ${input.user}@${input.host}:${input.port}`);
      let seenKey: string | undefined;
      ssh = new SshHost({
        host: input.host,
        port: input.port,
        username: input.user,
        password: secret.password,
        privateKey: secret.privateKey,
        passphrase: secret.passphrase,
        hostKeyFingerprint: input.hostKeyFingerprint,
        // Trust on first use, pinned for the rest of the job and stored with the credential.
        onNewHostKey: input.hostKeyFingerprint ? undefined : (fp) => void (seenKey = fp),
        connectTimeoutMs: this.options.sshConnectTimeoutMs ?? 10_000,
        commandTimeoutMs: 30_000,
        backoff: { initialMs: 200, maxMs: 1_000 },
        label: `${input.user}@${input.host}:${input.port}`,
      });
      await ssh.connect();
      const fingerprint = normalizeFingerprint(input.hostKeyFingerprint ?? seenKey ?? ssh.hostKey!);
      result.hostKeyFingerprint = fingerprint;
      result.hostKeyPinnedBy = input.hostKeyFingerprint ? 'operator' : 'first use';
      await auditStep('connected', {
        host: input.host,
        port: input.port,
        user: input.user,
        hostKeyFingerprint: fingerprint,
        pinnedBy: result.hostKeyPinnedBy,
      });

      // 2. Facts, with the agent's own collector.
      await enter('facts', 15, 'collecting facts');
      const facts = await collectFacts(ssh);
      await this.alive(ssh, 'facts');
      const identity = input.identity ?? (await deriveRouterIdentity(ssh, facts));
      const name = input.name ?? identity;
      const caps = predictCapabilities(facts);
      result.identity = identity;
      result.facts = {
        soc: facts.soc,
        arch: facts.arch,
        kernel: facts.kernel,
        openwrt: facts.openwrt?.version ?? null,
        model: facts.model.name ?? null,
      };
      await auditStep('facts_collected', { identity, ...(result.facts as object), ebpf: caps.ebpf });

      // Re-running on a router that is already managed and online: nothing to do.
      const existing = await db.router.findUnique({
        where: { identity },
        select: { id: true, name: true, status: true, placement: true, decommissionedAt: true },
      });
      if (existing?.decommissionedAt)
        throw new StepFailure(
          `router ${existing.name} (${identity}) was decommissioned; it cannot be onboarded again under this identity`,
        );
      if (existing && existing.status === 'online') {
        result.alreadyOnboarded = true;
        result.routerId = existing.id;
        result.placement = existing.placement;
        const msg = `already onboarded: router ${existing.name} (${existing.id}) is online, placement ${existing.placement}; nothing to do`;
        await auditStep('already_onboarded', { routerId: existing.id, identity });
        await this.finish(jobId, 'succeeded', msg, result, actor);
        return;
      }

      // 3. Packages.
      await enter('packages', 30, 'checking packages');
      let plan: PackagePlan;
      try {
        plan = await planPackages(ssh, facts);
      } catch (err) {
        if (err instanceof PackageError) throw new StepFailure(err.message);
        throw err;
      }
      const packages: Record<string, unknown> = {
        manager: plan.manager,
        present: plan.present,
        missing: plan.missing,
        installed: [],
      };
      result.packages = packages;
      if (plan.missing.length > 0) {
        if (!input.install) {
          const list = plan.missing.join(' ');
          packages.installCommand = plan.manager === 'apk' ? `apk add ${list}` : `opkg update && opkg install ${list}`;
          await auditStep('packages_missing', packages);
          throw new StepFailure(
            `missing packages: ${list} (re-run with install: true, or run \`${packages.installCommand}\` on the router)`,
          );
        }
        await this.progress(jobId, 'packages', 35, `installing ${plan.missing.join(' ')}`);
        try {
          const done = await installPackages(ssh, plan.manager!, plan.missing);
          packages.installed = done.installed;
          undo.push({ what: `packages installed: ${done.installed.join(' ')} (left in place)`, run: async () => {} });
        } catch (err) {
          if (err instanceof PackageError) throw new StepFailure(err.message);
          throw err;
        }
      }
      await auditStep('packages_checked', packages);

      // 4. Placement.
      await enter('placement', 50, 'choosing the placement');
      const node = await this.nodeOnRouter(ssh);
      let placement: 'on-router' | 'proxy';
      if (input.placement === 'on-router') {
        if (!node)
          throw new StepFailure(
            'placement on-router asked for, but the router has no Node.js 20+ (`node` not found); use placement proxy or auto',
          );
        placement = 'on-router';
      } else if (input.placement === 'proxy') placement = 'proxy';
      else placement = node ? 'on-router' : 'proxy';
      result.placement = placement;
      let onRouter: { enrollmentTokenFile?: string } | undefined;
      if (placement === 'on-router') {
        await this.progress(jobId, 'placement', 55, `installing the agent on the router (node ${node!.version})`);
        onRouter = await this.installOnRouter(
          ssh,
          node!.path,
          { identity, name, tags: input.tags, actor, facts },
          undo,
        );
      } else {
        await this.progress(
          jobId,
          'placement',
          55,
          `starting the controller-hosted proxy agent (${this.proxies.proxyIdentity})`,
        );
        await this.proxies.start(
          {
            identity,
            name,
            tags: input.tags,
            host: input.host,
            port: input.port,
            username: input.user,
            ...secret,
            hostKeyFingerprint: fingerprint,
          },
          actor,
        );
        undo.push({
          what: `proxy agent for ${identity} stopped, its key and SSH credential removed`,
          run: async () => {
            await this.proxies.stop(identity, { forget: true });
            const row = await db.router.findUnique({ where: { identity }, select: { id: true } });
            if (row) await this.deps.security.credentials.remove(row.id);
          },
        });
      }
      await auditStep('agent_placed', {
        identity,
        placement,
        proxy: placement === 'proxy' ? this.proxies.proxyIdentity : undefined,
      });

      // 5. First Hello.
      await enter('hello', 70, `waiting for ${identity} to say Hello`);
      const router = await this.waitFor(jobId, this.options.helloTimeoutMs ?? 60_000, async () =>
        db.router.findFirst({
          where: { identity, status: 'online' },
          select: { id: true, name: true, tags: true, desiredRevisionId: true },
        }),
      );
      if (!router)
        throw new StepFailure(
          `no Hello from ${identity} within ${Math.round((this.options.helloTimeoutMs ?? 60_000) / 1000)} s`,
        );
      result.routerId = router.id;
      const tags = [...new Set([...router.tags, ...input.tags])];
      if (tags.length !== router.tags.length) await db.router.update({ where: { id: router.id }, data: { tags } });
      if (placement === 'proxy') {
        await this.deps.security.credentials.put(router.id, {
          host: input.host,
          port: input.port,
          username: input.user,
          authType: input.authType,
          ...secret,
          hostKeyFingerprint: fingerprint,
          proxyIdentity: this.proxies.proxyIdentity,
        });
      }
      if (onRouter?.enrollmentTokenFile) {
        // Spent once the agent holds its certificate (a Hello over mTLS proves it): leave nothing usable behind.
        await ssh.run(['rm', '-f', onRouter.enrollmentTokenFile]);
      }
      await auditStep('hello_received', { routerId: router.id, identity, tags });

      // 6. First applied plan, when the router has a desired revision.
      if (router.desiredRevisionId) {
        await enter('plan', 85, 'waiting for the first applied plan');
        const want = router.desiredRevisionId;
        const applied = await this.waitFor(jobId, this.options.planTimeoutMs ?? 120_000, async () => {
          const r = await db.router.findUnique({ where: { id: router.id }, select: { appliedRevisionId: true } });
          if (r?.appliedRevisionId === want) return { status: 'applied' as const, error: null };
          const last = await db.applyResult.findFirst({
            where: { routerId: router.id, revisionId: want, startedAt: { gte: job.createdAt } },
            orderBy: { startedAt: 'desc' },
          });
          if (last && last.status !== 'applied' && last.status !== 'pending')
            return { status: last.status, error: last.error };
          return null;
        });
        if (!applied)
          throw new StepFailure(
            `no apply result for the router's desired revision within ${Math.round((this.options.planTimeoutMs ?? 120_000) / 1000)} s`,
          );
        result.plan = { revisionId: want, ...applied };
        await auditStep('plan_applied', { routerId: router.id, ...(result.plan as object) });
        if (applied.status !== 'applied')
          throw new StepFailure(
            `the first plan was not applied: ${applied.status}${applied.error ? `: ${applied.error}` : ''}`,
          );
      }
      await this.finish(
        jobId,
        'succeeded',
        `onboarded ${router.name} (${router.id}), placement ${placement}`,
        result,
        actor,
      );
    } catch (err) {
      const cancelled = err instanceof Cancelled;
      const message = cancelled ? `cancelled during ${step}` : this.describe(err, step);
      const rolledBack: string[] = [];
      for (const u of undo.reverse()) {
        try {
          await u.run();
          rolledBack.push(u.what);
        } catch (e) {
          rolledBack.push(`${u.what}: FAILED (${(e as Error).message})`);
        }
      }
      result.rolledBack = rolledBack;
      if (rolledBack.length) await auditStep('rolled_back', { rolledBack });
      await this.finish(jobId, cancelled ? 'cancelled' : 'failed', message, result, actor);
    } finally {
      await ssh?.close().catch(() => undefined);
    }
  }

  private describe(err: unknown, step: StepName): string {
    if (err instanceof StepFailure) return err.message;
    if (err instanceof SshError) {
      // After the first step, losing the connection means the router went away under us.
      if (step !== 'connect' && err.kind !== 'auth' && err.kind !== 'host-key')
        return `lost the router during ${step}: ${err.message}`;
      return err.message;
    }
    const m = (err as Error).message ?? String(err);
    return `${step} failed: ${m}`;
  }

  /** collectFacts degrades gracefully when commands fail; make sure the router really answered. */
  private async alive(ssh: SshHost, step: StepName): Promise<void> {
    const r = await ssh.run(['true']);
    if (r.code !== 0) throw new StepFailure(`lost the router during ${step}: ${r.stderr.trim() || `exit ${r.code}`}`);
  }

  private async nodeOnRouter(ssh: SshHost): Promise<{ path: string; version: string } | null> {
    const r = await ssh.run(['sh', '-c', 'p=$(command -v node) && echo "$p" && "$p" --version']);
    if (r.code !== 0) {
      if (/connection lost/.test(r.stderr))
        throw new StepFailure(`lost the router during placement: ${r.stderr.trim()}`);
      return null;
    }
    const [path, version] = r.stdout.trim().split('\n');
    const major = Number(/^v(\d+)/.exec(version ?? '')?.[1] ?? 0);
    return path && major >= 20 ? { path, version: version! } : null;
  }

  /**
   * The on-router placement: the bundle, the BPF objects for the router's endianness (and
   * wf-tcx when it was built for the router's CPU), the procd init script and the UCI config
   * (plus a one-time enrollment token, 0600, and the CA fingerprint, when agents use mutual
   * TLS), then the service. On a Linux box without procd (no /etc/rc.common) the agent is
   * started detached with a pid file instead. The agent's command line is agent/main.ts's
   * `run`: `--credentials-dir` (its key and certificate, kept after the first enrollment),
   * `--enroll-token-file` + `--ca-fingerprint` (first start only), `--insecure` for a
   * plaintext controller.
   */
  private async installOnRouter(
    ssh: SshHost,
    node: string,
    r: { identity: string; name: string; tags: string[]; actor: string; facts: RouterFacts },
    undo: Undo[],
  ): Promise<{ enrollmentTokenFile?: string }> {
    const bundle = resolve(this.options.bundleDir ?? 'dist/agent');
    if (!existsSync(join(bundle, AGENT_ENTRY_FILE)))
      throw new StepFailure(
        `the agent bundle is missing (${join(bundle, AGENT_ENTRY_FILE)}): run npm run agent:bundle on the controller`,
      );
    const p = this.options.onRouterPrefix ?? '';
    const home = `${p}/usr/lib/wrtfleet`;
    const files = {
      init: `${p}/etc/init.d/wrtfleet-agent`,
      config: `${p}/etc/config/wrtfleet`,
      stateDir: `${p}/etc/wrtfleet`,
      credentials: `${p}/etc/wrtfleet/credentials`,
      token: `${p}/etc/wrtfleet/enrollment-token`,
      pid: `${p}/var/run/wrtfleet-agent.pid`,
      log: `${p}/tmp/wrtfleet-agent.log`,
      uploads: `${p}/tmp`,
    };
    const procd = (await ssh.run(['test', '-f', '/etc/rc.common'])).code === 0 && !p;
    const q = shellQuote;
    undo.push({
      what: `agent service stopped and its files removed (${home}, ${files.init}, ${files.config}, ${files.stateDir})`,
      run: async () => {
        if (procd) await ssh.run(['sh', '-c', `${q(files.init)} stop; ${q(files.init)} disable`]);
        // SIGTERM (the agent closes its stream and exits), then up to ~5 s, then SIGKILL.
        const stop = [
          `[ -f ${q(files.pid)} ] || exit 0`,
          `pid=$(cat ${q(files.pid)})`,
          'kill "$pid" 2>/dev/null',
          'i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 25 ]; do sleep 0.2 2>/dev/null || sleep 1; i=$((i+1)); done',
          'kill -9 "$pid" 2>/dev/null',
          `rm -f ${q(files.pid)}`,
          'exit 0',
        ].join('\n');
        const s = await ssh.run(['sh', '-c', stop], { timeoutMs: 30_000 });
        if (s.code !== 0) throw new Error(`stopping the agent: ${s.stderr.trim() || `exit ${s.code}`}`);
        const rm = await ssh.run(['rm', '-rf', home, files.init, files.config, files.stateDir, files.log]);
        if (rm.code !== 0) throw new Error(`removing the agent's files: ${rm.stderr.trim()}`);
      },
    });
    const mkdir = async (d: string) => {
      const m = await ssh.run(['mkdir', '-p', d]);
      if (m.code !== 0) throw new StepFailure(`cannot create ${d} on the router: ${m.stderr.trim()}`);
    };
    for (const d of [
      `${home}/bpf/build`,
      `${p}/etc/init.d`,
      `${p}/etc/config`,
      files.stateDir,
      `${p}/var/run`,
      files.uploads,
    ])
      await mkdir(d);
    await ssh.writeFile(`${home}/${AGENT_ENTRY_FILE}`, readFileSync(join(bundle, AGENT_ENTRY_FILE)), 0o755);
    // Re-onboarding a router that runs an older bundle: its entry had another name.
    await ssh.run(['rm', '-f', `${home}/${OLD_AGENT_ENTRY_FILE}`]);
    const endian = r.facts.endian === 'big' ? 'bpfeb' : 'bpfel';
    const objDir = join(bundle, 'bpf/build', endian);
    if (existsSync(objDir)) {
      await mkdir(`${home}/bpf/build/${endian}`);
      for (const f of readdirSync(objDir))
        await ssh.writeFile(`${home}/bpf/build/${endian}/${f}`, readFileSync(join(objDir, f)), 0o644);
    }
    // wf-tcx is native code: the bundle's own build where the router has the controller's CPU,
    // otherwise the static build for the router's CPU (bpf/build.sh), when there is one.
    const helper = tcxHelperBinaryFor(r.facts.arch, r.facts.endian, join(bundle, 'bpf/build'));
    if (helper) await ssh.writeFile(`${home}/bpf/build/wf-tcx`, helper, 0o755);

    const controller = this.options.agentControllerAddress ?? this.deps.grpcAddress();
    const pki = this.deps.security.pki;
    const caFingerprint = pki ? `SHA256:${pki.caFingerprint}` : undefined;
    let enrollmentTokenFile: string | undefined;
    if (pki) {
      // One-time, short-lived, bound to the router's name: useless once the agent has enrolled.
      const { secret } = await this.deps.security.enrollmentTokens.create({
        routerName: r.name,
        tags: r.tags,
        ttlSeconds: 3600,
        createdBy: r.actor,
      });
      await ssh.writeFile(files.token, `${secret}\n`, 0o600);
      await ssh.writeFile(`${files.stateDir}/ca-fingerprint`, `${caFingerprint}\n`, 0o644);
      enrollmentTokenFile = files.token;
    }
    const uci = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
    const config = [
      "config agent 'main'",
      "\toption enabled '1'",
      `\toption controller ${uci(controller)}`,
      `\toption identity ${uci(r.identity)}`,
      `\toption name ${uci(r.name)}`,
      `\toption state_file ${uci(`${files.stateDir}/state.json`)}`,
      `\toption node ${uci(node)}`,
      ...(pki
        ? [
            `\toption credentials_dir ${uci(files.credentials)}`,
            `\toption enroll_token_file ${uci(files.token)}`,
            `\toption ca_fingerprint ${uci(caFingerprint!)}`,
          ]
        : ["\toption insecure '1'"]),
      '',
    ].join('\n');
    await ssh.writeFile(files.config, config, 0o644);

    const initScript = readFileSync(join(bundle, 'openwrt/wrtfleet-agent.init'), 'utf8');
    if (procd) {
      await ssh.writeFile(files.init, initScript, 0o755);
      const s = await ssh.run(['sh', '-c', `${q(files.init)} enable && ${q(files.init)} start`], { timeoutMs: 30_000 });
      if (s.code !== 0) throw new StepFailure(`starting the agent service failed: ${s.stderr.trim()}`);
    } else {
      const trust = pki
        ? [
            '--credentials-dir',
            files.credentials,
            '--enroll-token-file',
            files.token,
            '--ca-fingerprint',
            caFingerprint!,
          ]
        : ['--insecure'];
      // Started as the procd script starts it: the same node flags and environment, read from it.
      const { nodeFlags, env } = agentRuntimeSettings(initScript);
      const argv = [
        node,
        ...nodeFlags,
        `${home}/${AGENT_ENTRY_FILE}`,
        'run',
        '--placement',
        'on_router',
        '--controller',
        controller,
        '--identity',
        r.identity,
        '--name',
        r.name,
        '--state-file',
        `${files.stateDir}/state.json`,
        '--upload-dir',
        files.uploads,
        ...trust,
      ];
      const cmd = argv.map(q).join(' ');
      const envPrefix = [...env, `WRTFLEET_HOME=${home}`].map(q).join(' ');
      const s = await ssh.run([
        'sh',
        '-c',
        `env ${envPrefix} setsid ${cmd} > ${q(files.log)} 2>&1 < /dev/null & echo $! > ${q(files.pid)}`,
      ]);
      if (s.code !== 0) throw new StepFailure(`starting the agent failed: ${s.stderr.trim()}`);
      // An agent that cannot start (bad option, enrollment refused) exits at once: say so with its log, not after the Hello timeout.
      await new Promise((res) => setTimeout(res, 300));
      const alive = await ssh.run(['sh', '-c', `kill -0 $(cat ${q(files.pid)}) 2>/dev/null`]);
      if (alive.code !== 0) {
        const log = (await ssh.readFile(files.log)) ?? '';
        throw new StepFailure(
          `the agent exited right after starting: ${log.trim().split('\n').slice(-3).join(' | ') || 'no output'}`,
        );
      }
    }
    return { enrollmentTokenFile };
  }

  private async waitFor<T>(jobId: string, timeoutMs: number, check: () => Promise<T | null>): Promise<T | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Cancel first: a cancel that arrives while we wait wins over a Hello that lands at the same time.
      await this.checkCancel(jobId);
      const v = await check();
      if (v) return v;
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  private async finish(
    jobId: string,
    state: 'succeeded' | 'failed' | 'cancelled',
    message: string,
    result: Record<string, unknown>,
    actor: string,
  ): Promise<void> {
    await this.deps.db.job.update({
      where: { id: jobId },
      data: {
        state,
        step: 'done',
        percent: state === 'succeeded' ? 100 : undefined,
        message,
        error: state === 'succeeded' ? null : message,
        result: result as object,
        finishedAt: new Date(),
      },
    });
    await this.deps.audit.append({
      actor,
      action: `onboarding.${state}`,
      targetType: 'job',
      targetId: jobId,
      after: { message, routerId: result.routerId ?? null, placement: result.placement ?? null },
    });
    this.deps.log.info({ jobId, state, message }, 'onboarding finished');
  }
}

/**
 * The node flags and environment the on-router agent runs with, as the procd init script
 * declares them (AGENT_NODE_FLAGS, AGENT_ENV): one place says how the agent stays within its
 * memory budget, and the start without procd follows it.
 */
export function agentRuntimeSettings(initScript: string): { nodeFlags: string[]; env: string[] } {
  const value = (name: string) => {
    const m = initScript.match(new RegExp(`^${name}="([^"]*)"$`, 'm'));
    if (!m) throw new Error(`the agent's init script declares no ${name}`);
    return m[1]!.split(/\s+/).filter(Boolean);
  };
  return { nodeFlags: value('AGENT_NODE_FLAGS'), env: value('AGENT_ENV') };
}
