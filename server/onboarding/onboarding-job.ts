/**
 * One onboarding job, start to end: each step is a method, `run` lists them in order. A step
 * starts by checking for a cancel and writing its progress to the Job row; whatever it leaves
 * behind it pushes as an undo, which a failed or cancelled job runs backwards.
 */
import { predictCapabilities } from '../../core/capabilities.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import { SshHost, normalizeFingerprint } from '../../core/host/ssh-host.js';
import { deriveRouterIdentity } from '../../core/identity.js';
import type { ControllerSecurity } from '../auth/security.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { ControllerProxies } from './controller-proxy.js';
import { Cancelled, describeFailure, StepFailure, type Undo } from './job-failure.js';
import { JobRecord, type JobRecordDeps } from './job-record.js';
import { installOnRouter, nodeOnRouter } from './on-router-install.js';
import { ensurePackages } from './packages-step.js';
import type { OnboardingInput, OnboardingOptions, OnboardingSecret, StepName } from './onboarding-request.js';
import { parsePlacement } from '../../core/onboarding/placement.js';
import { TargetRefused, type OnboardingTargetPolicy } from './target-policy.js';

export interface OnboardingJobDeps extends JobRecordDeps {
  security: ControllerSecurity;
  box: SecretBox;
  proxies: ControllerProxies;
  targets: OnboardingTargetPolicy;
  grpcAddress: () => string;
  /** Read at each use: tests change them on a running controller. */
  options: () => OnboardingOptions;
}

/** The sealed secret is bound to its job: a payload copied to another job does not open. */
export const secretAad = (jobId: string) => `onboarding-job:${jobId}`;

interface Device {
  facts: RouterFacts;
  identity: string;
  name: string;
}

type ChosenPlacement = { placement: 'on_router'; node: { path: string; version: string } } | { placement: 'proxy' };

interface OnlineRouter {
  id: string;
  name: string;
  tags: string[];
  desiredRevisionId: string | null;
}

export class OnboardingJob {
  private secret: OnboardingSecret = {};
  private ssh?: SshHost;
  private fingerprint = '';
  private step: StepName = 'connect';
  private readonly undo: Undo[] = [];
  private readonly result: Record<string, unknown> = {};
  private readonly record: JobRecord;

  private constructor(
    private readonly deps: OnboardingJobDeps,
    private readonly jobId: string,
    private readonly input: OnboardingInput,
    private readonly actor: string,
    private readonly createdAt: Date,
  ) {
    this.record = new JobRecord(deps, jobId, actor);
  }

  /** Marks a queued job running; null when it was cancelled while queued, or another worker has it. */
  static async claim(deps: OnboardingJobDeps, jobId: string): Promise<OnboardingJob | null> {
    const claimed = await deps.db.job.updateMany({
      where: { id: jobId, state: 'queued' },
      data: { state: 'running', step: 'connect', percent: 0, message: 'starting' },
    });
    if (claimed.count === 0) return null;
    const job = (await deps.db.job.findUnique({ where: { id: jobId } }))!;
    return new OnboardingJob(deps, jobId, job.input as unknown as OnboardingInput, job.createdBy, job.createdAt);
  }

  private get options(): OnboardingOptions {
    return this.deps.options();
  }

  /** The steps in order; the outcome is the Job row. */
  async run(sealed: string): Promise<void> {
    if (!(await this.openSecret(sealed))) return;
    try {
      await this.connect();
      const device = await this.collectRouterFacts();
      if (await this.alreadyOnboarded(device.identity)) return;
      await this.checkPackages(device.facts);
      const chosen = await this.choosePlacement();
      const onRouter = await this.placeAgent(device, chosen);
      const router = await this.waitForHello(device.identity, chosen, onRouter);
      await this.waitForFirstPlan(router);
      await this.record.finish(
        'succeeded',
        `onboarded ${router.name} (${router.id}), placement ${chosen.placement}`,
        this.result,
      );
    } catch (err) {
      await this.rollBack(err);
    } finally {
      await this.ssh?.close().catch(() => undefined);
    }
  }

  private async openSecret(sealed: string): Promise<boolean> {
    try {
      this.secret = JSON.parse(this.deps.box.open(sealed, secretAad(this.jobId))) as OnboardingSecret;
      return true;
    } catch {
      const message = 'the sealed SSH credential for this job cannot be opened (data key changed?)';
      await this.record.finish('failed', message, this.result);
      return false;
    }
  }

  /** Connects and pins the host key: the operator's, or the first one seen. */
  private async connect(): Promise<void> {
    const { input, secret } = this;
    await this.enter('connect', 5, `connecting to ${input.user}@${input.host}:${input.port}`);
    // Checked again here (the API checked at request time): the connection goes to an
    // address just checked, so a hostname cannot be re-pointed in between.
    const [address] = await this.deps.targets.addresses(input.host).catch((err: unknown) => {
      throw err instanceof TargetRefused ? new StepFailure(err.message) : err;
    });
    let seenKey: string | undefined;
    const ssh = (this.ssh = new SshHost({
      host: address!,
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
    }));
    await ssh.connect();
    this.fingerprint = normalizeFingerprint(input.hostKeyFingerprint ?? seenKey ?? ssh.hostKey!);
    this.result.hostKeyFingerprint = this.fingerprint;
    this.result.hostKeyPinnedBy = input.hostKeyFingerprint ? 'operator' : 'first use';
    await this.record.audit('connected', {
      host: input.host,
      port: input.port,
      user: input.user,
      hostKeyFingerprint: this.fingerprint,
      pinnedBy: this.result.hostKeyPinnedBy,
    });
  }

  /** Facts, with the agent's own collector; the identity comes from the hardware unless given. */
  private async collectRouterFacts(): Promise<Device> {
    await this.enter('facts', 15, 'collecting facts');
    const ssh = this.ssh!;
    const facts = await collectFacts(ssh);
    await this.alive(ssh, 'facts');
    const identity = this.input.identity ?? (await deriveRouterIdentity(ssh, facts));
    const name = this.input.name ?? identity;
    const caps = predictCapabilities(facts);
    this.result.identity = identity;
    this.result.facts = {
      soc: facts.soc,
      arch: facts.arch,
      kernel: facts.kernel,
      release: facts.openwrt?.release ?? null,
      model: facts.model.name ?? null,
    };
    await this.record.audit('facts_collected', { identity, ...(this.result.facts as object), ebpf: caps.ebpf });
    return { facts, identity, name };
  }

  /** Re-running on a router that is already managed and online: nothing to do (the job succeeds). */
  private async alreadyOnboarded(identity: string): Promise<boolean> {
    const existing = await this.deps.db.router.findUnique({
      where: { identity },
      select: { id: true, name: true, status: true, placement: true, decommissionedAt: true },
    });
    if (existing?.decommissionedAt)
      throw new StepFailure(
        `router ${existing.name} (${identity}) was decommissioned; it cannot be onboarded again under this identity`,
      );
    if (!existing || existing.status !== 'online') return false;
    this.result.alreadyOnboarded = true;
    this.result.routerId = existing.id;
    this.result.placement = existing.placement;
    const msg = `already onboarded: router ${existing.name} (${existing.id}) is online, placement ${existing.placement}; nothing to do`;
    await this.record.audit('already_onboarded', { routerId: existing.id, identity });
    await this.record.finish('succeeded', msg, this.result);
    return true;
  }

  /** The packages the plan needs: installed when the operator said so, otherwise a failure naming them. */
  private async checkPackages(facts: RouterFacts): Promise<void> {
    await this.enter('packages', 30, 'checking packages');
    const { record, undo, result } = this;
    await ensurePackages(this.ssh!, facts, { install: this.input.install, record, undo, result });
  }

  /** On the router where Node.js 20+ runs (unless proxy was asked for), else the controller-hosted proxy. */
  private async choosePlacement(): Promise<ChosenPlacement> {
    await this.enter('placement', 50, 'choosing the placement');
    const node = await nodeOnRouter(this.ssh!);
    // Parsed, not trusted: a row queued by an older controller during an upgrade may still say on-router.
    const asked = parsePlacement(String(this.input.placement)) ?? 'auto';
    if (asked === 'on_router' && !node)
      throw new StepFailure(
        'placement on_router asked for, but the router has no Node.js 20+ (`node` not found); use placement proxy or auto',
      );
    const chosen: ChosenPlacement =
      asked !== 'proxy' && node ? { placement: 'on_router', node } : { placement: 'proxy' };
    this.result.placement = chosen.placement;
    return chosen;
  }

  private async placeAgent(device: Device, chosen: ChosenPlacement): Promise<{ enrollmentTokenFile?: string }> {
    let onRouter: { enrollmentTokenFile?: string } = {};
    if (chosen.placement === 'on_router') {
      await this.record.progress('placement', 55, `installing the agent on the router (node ${chosen.node.version})`);
      onRouter = await installOnRouter(
        this.ssh!,
        { ...device, node: chosen.node.path, tags: this.input.tags, actor: this.actor },
        {
          bundleDir: this.options.bundleDir,
          prefix: this.options.onRouterPrefix,
          controller: this.options.agentControllerAddress ?? this.deps.grpcAddress(),
          security: this.deps.security,
        },
        this.undo,
      );
    } else await this.startProxy(device);
    await this.record.audit('agent_placed', {
      identity: device.identity,
      placement: chosen.placement,
      proxy: chosen.placement === 'proxy' ? this.deps.proxies.proxyIdentity : undefined,
    });
    return onRouter;
  }

  private async startProxy({ identity, name }: Device): Promise<void> {
    const { proxies, db, security } = this.deps;
    await this.record.progress(
      'placement',
      55,
      `starting the controller-hosted proxy agent (${proxies.proxyIdentity})`,
    );
    await proxies.start(
      {
        identity,
        name,
        tags: this.input.tags,
        host: this.input.host,
        port: this.input.port,
        username: this.input.user,
        ...this.secret,
        hostKeyFingerprint: this.fingerprint,
      },
      this.actor,
    );
    this.undo.push({
      what: `proxy agent for ${identity} stopped, its key and SSH credential removed`,
      run: async () => {
        await proxies.stop(identity, { forget: true });
        const row = await db.router.findUnique({ where: { identity }, select: { id: true } });
        if (row) await security.credentials.remove(row.id);
      },
    });
  }

  /** The first Hello: then the operator's tags join the router's, and the credential is stored for a proxy. */
  private async waitForHello(
    identity: string,
    chosen: ChosenPlacement,
    onRouter: { enrollmentTokenFile?: string },
  ): Promise<OnlineRouter> {
    const { db, security, proxies } = this.deps;
    const { input } = this;
    await this.enter('hello', 70, `waiting for ${identity} to say Hello`);
    const timeoutMs = this.options.helloTimeoutMs ?? 60_000;
    const router = await this.record.waitFor(timeoutMs, async () =>
      db.router.findFirst({
        where: { identity, status: 'online' },
        select: { id: true, name: true, tags: true, desiredRevisionId: true },
      }),
    );
    if (!router) throw new StepFailure(`no Hello from ${identity} within ${Math.round(timeoutMs / 1000)} s`);
    this.result.routerId = router.id;
    const tags = [...new Set([...router.tags, ...input.tags])];
    if (onRouter.enrollmentTokenFile) {
      // Spent once the agent holds its certificate (a Hello over mTLS proves it): leave nothing usable behind.
      await this.ssh!.run(['rm', '-f', onRouter.enrollmentTokenFile]);
    }
    // The operator's tags and the proxy's stored credential commit with the step's event.
    await this.record.audit('hello_received', { routerId: router.id, identity, tags }, async (tx) => {
      if (tags.length !== router.tags.length) await tx.router.update({ where: { id: router.id }, data: { tags } });
      if (chosen.placement === 'proxy') {
        await security.credentials.put(
          router.id,
          {
            host: input.host,
            port: input.port,
            username: input.user,
            authType: input.authType,
            ...this.secret,
            hostKeyFingerprint: this.fingerprint,
            proxyIdentity: proxies.proxyIdentity,
          },
          tx,
        );
      }
    });
    return router;
  }

  /** The first applied plan, when the router has a desired revision. */
  private async waitForFirstPlan(router: OnlineRouter): Promise<void> {
    const want = router.desiredRevisionId;
    if (!want) return;
    const { db } = this.deps;
    await this.enter('plan', 85, 'waiting for the first applied plan');
    const timeoutMs = this.options.planTimeoutMs ?? 120_000;
    const applied = await this.record.waitFor(timeoutMs, async () => {
      const r = await db.router.findUnique({ where: { id: router.id }, select: { appliedRevisionId: true } });
      if (r?.appliedRevisionId === want) return { status: 'applied' as const, error: null };
      const last = await db.applyResult.findFirst({
        where: { routerId: router.id, revisionId: want, startedAt: { gte: this.createdAt } },
        orderBy: { startedAt: 'desc' },
      });
      if (last && last.status !== 'applied' && last.status !== 'pending')
        return { status: last.status, error: last.error };
      return null;
    });
    if (!applied)
      throw new StepFailure(
        `no apply result for the router's desired revision within ${Math.round(timeoutMs / 1000)} s`,
      );
    this.result.plan = { revisionId: want, ...applied };
    await this.record.audit('plan_applied', { routerId: router.id, ...(this.result.plan as object) });
    if (applied.status !== 'applied')
      throw new StepFailure(
        `the first plan was not applied: ${applied.status}${applied.error ? `: ${applied.error}` : ''}`,
      );
  }

  /** Runs the undos newest first, then ends the job as cancelled or failed. */
  private async rollBack(err: unknown): Promise<void> {
    const cancelled = err instanceof Cancelled;
    const message = cancelled ? `cancelled during ${this.step}` : describeFailure(err, this.step);
    const rolledBack: string[] = [];
    for (const u of this.undo.reverse()) {
      try {
        await u.run();
        rolledBack.push(u.what);
      } catch (e) {
        rolledBack.push(`${u.what}: FAILED (${(e as Error).message})`);
      }
    }
    this.result.rolledBack = rolledBack;
    if (rolledBack.length) await this.record.audit('rolled_back', { rolledBack });
    await this.record.finish(cancelled ? 'cancelled' : 'failed', message, this.result);
  }

  private async enter(step: StepName, percent: number, message: string): Promise<void> {
    await this.record.checkCancel();
    this.step = step;
    await this.options.beforeStep?.(this.jobId, step);
    await this.record.progress(step, percent, message);
  }

  /** collectFacts degrades gracefully when commands fail; make sure the router really answered. */
  private async alive(ssh: SshHost, step: StepName): Promise<void> {
    const r = await ssh.run(['true']);
    if (r.code !== 0) throw new StepFailure(`lost the router during ${step}: ${r.stderr.trim() || `exit ${r.code}`}`);
  }
}
