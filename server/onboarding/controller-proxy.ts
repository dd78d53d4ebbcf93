/**
 * The proxy placement hosted by the controller itself (docs/DOMAIN.md, Where the agent runs: a proxy may run on any
 * Linux host, the controller's included). It is the agent's own code: one RouterAgent over
 * one SshHost per router, enrolled through the real enrollment path
 * (`enrollThroughController`: token, CA pin, CSR over TLS, mTLS stream), so the controller
 * sees these routers exactly as it sees routers managed by a stand-alone proxy. (The
 * enrollment is enrollThroughController's, plus a state directory for the key.)
 *
 * Restart safety: the SSH credential of every router managed here is stored encrypted
 * (RouterCredential, proxyIdentity = this proxy's name); `resume()` at controller start
 * starts an agent for each of them. Client keys and certificates live in
 * `<dataDir>/onboarding-proxy/<router>/` (key 0600), the agent's applied/pending state next
 * to them, so an unconfirmed apply still rolls back after a controller restart.
 *
 * Several replicas: each replica's proxy is named after its host (`controller:<hostname>`)
 * and only resumes its own routers.
 *
 * Every SSH (re)connection of a proxy agent checks its router's host against the onboarding
 * targets again (WRTFLEET_ONBOARDING_ALLOW, target-policy.ts) and dials the address that check
 * resolved: a host name allowed at onboarding may point elsewhere by the time the agent
 * reconnects, hours or a controller restart later.
 */
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AgentCredentials, keepRenewed, RouterAgent } from '../../agent/index.js';
import { SshHost } from '../../core/host/ssh-host.js';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { ControllerSecurity } from '../auth/security.js';
import type { OnboardingTargetPolicy } from './target-policy.js';

export interface ProxiedRouter {
  identity: string;
  name: string;
  tags: string[];
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  passphrase?: string;
  /** Pinned: the proxy never trusts another key for this router. */
  hostKeyFingerprint: string;
}

interface Running {
  agent: RouterAgent;
  stopRenewal?: () => void;
}

export function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, '_');
}

export class ControllerProxies {
  readonly proxyIdentity = `controller:${hostname()}`;
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly deps: {
      db: PrismaClient;
      security: ControllerSecurity;
      grpcAddress: () => string;
      dataDir: string;
      log: Logger;
      /** Where a proxy agent may connect: checked before each of its SSH connections. */
      targets: OnboardingTargetPolicy;
      /** Test and benchmark overrides for every agent (reconnect policy, probing). */
      agent?: Partial<ConstructorParameters<typeof RouterAgent>[0]>;
    },
  ) {}

  private dir(identity: string): string {
    return join(this.deps.dataDir, 'onboarding-proxy', safeName(identity));
  }

  has(identity: string): boolean {
    return this.running.has(identity);
  }

  get size(): number {
    return this.running.size;
  }

  /** Starts (or restarts) the agent for one router; enrolls it first when it has no certificate yet. */
  async start(r: ProxiedRouter, actor: string): Promise<void> {
    await this.stop(r.identity);
    const dir = this.dir(r.identity);
    let creds: AgentCredentials | null = null;
    if (this.deps.security.pki) {
      creds = await AgentCredentials.load(dir);
      if (!creds) {
        // enrollThroughController's path (single-use token bound to the name, CA pin, CSR over
        // TLS), with the state directory added so the key and certificate survive a restart.
        const { secret } = await this.deps.security.enrollmentTokens.create({
          routerName: r.name,
          tags: r.tags,
          ttlSeconds: 300,
          createdBy: actor,
        });
        creds = await AgentCredentials.enroll({
          address: this.deps.grpcAddress(),
          token: secret,
          identity: r.identity,
          name: r.name,
          caFingerprint: this.deps.security.pki.caFingerprint,
          stateDir: dir,
        });
      }
    }
    const ssh = new SshHost({
      host: r.host,
      port: r.port,
      username: r.username,
      password: r.password,
      privateKey: r.privateKey,
      passphrase: r.passphrase,
      hostKeyFingerprint: r.hostKeyFingerprint,
      label: `${r.username}@${r.host}:${r.port}`,
      backoff: { initialMs: 500, maxMs: 30_000 },
      resolveAddress: this.allowedAddress(r.identity),
    });
    const log = this.deps.log;
    const agent = new RouterAgent({
      host: ssh,
      controller: this.deps.grpcAddress(),
      credentials: creds?.linkCredentials,
      placement: 'proxy',
      proxyHost: this.proxyIdentity,
      identity: r.identity,
      name: r.name,
      stateFile: join(dir, 'state.json'),
      // A controller restart reconnects every proxied router at once, in-process: no need to spread them over 10 s.
      reconnect: { jitterWindowMs: 1_000, initialDelayMs: 200, maxDelayMs: 10_000 },
      log: (m) => log.debug({ router: r.identity }, m),
      ...this.deps.agent,
    });
    const stopRenewal = creds
      ? keepRenewed(agent.link, creds, {
          onError: (err) => log.warn({ router: r.identity, reason: err.message }, 'certificate renewal failed'),
        })
      : undefined;
    agent.start();
    this.running.set(r.identity, { agent, stopRenewal });
  }

  /**
   * The address one router's host stands for now, if the onboarding targets allow it. A refusal
   * is logged once when it starts (the agent retries with backoff) and once when it ends.
   */
  private allowedAddress(identity: string): (host: string) => Promise<string> {
    let refusing = false;
    return async (host) => {
      try {
        const [address] = await this.deps.targets.addresses(host);
        if (refusing)
          this.deps.log.info({ router: identity, host, address }, 'proxy agent: its router is an allowed target again');
        refusing = false;
        return address!;
      } catch (err) {
        if (!refusing)
          this.deps.log.warn(
            { router: identity, host, reason: (err as Error).message },
            'proxy agent refused to connect to its router: not an allowed onboarding target now',
          );
        refusing = true;
        throw err;
      }
    };
  }

  /** Stops the agent; with `forget`, also deletes its key, certificate and state (rollback, decommission). */
  async stop(identity: string, options: { forget?: boolean } = {}): Promise<boolean> {
    const r = this.running.get(identity);
    this.running.delete(identity);
    if (r) {
      r.stopRenewal?.();
      await r.agent.stop().catch(() => undefined);
    }
    if (options.forget) await rm(this.dir(identity), { recursive: true, force: true });
    return !!r;
  }

  /** At controller start: an agent for every router whose credential names this proxy. */
  async resume(
    reveal: (routerId: string) => Promise<Omit<ProxiedRouter, 'identity' | 'name' | 'tags'> | null>,
  ): Promise<number> {
    const rows = await this.deps.db.routerCredential.findMany({
      where: { proxyIdentity: this.proxyIdentity, router: { decommissionedAt: null } },
      select: { routerId: true, router: { select: { identity: true, name: true, tags: true } } },
    });
    let started = 0;
    for (const row of rows) {
      try {
        const cred = await reveal(row.routerId);
        if (!cred) continue;
        await this.start(
          { ...cred, identity: row.router.identity, name: row.router.name, tags: row.router.tags },
          'system:onboarding-proxy',
        );
        started += 1;
      } catch (err) {
        // One router's broken credential never keeps the others from being managed.
        this.deps.log.error(
          { routerId: row.routerId, reason: (err as Error).message },
          'cannot resume the proxy agent for a router',
        );
      }
    }
    if (started) this.deps.log.info({ started }, 'resumed controller-hosted proxy agents');
    return started;
  }

  async close(): Promise<void> {
    await Promise.all([...this.running.keys()].map((id) => this.stop(id)));
  }
}
