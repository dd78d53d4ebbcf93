/**
 * The proxy placement: one process drives many routers over SSH (MT7621 and ath79 have no
 * Node.js, docs/DOMAIN.md, Where the agent runs). Each router gets its own SshHost, RouterAgent, identity, state
 * file and gRPC stream, so one router's broken SSH or stream never touches the others.
 *
 * Config (JSON or YAML):
 *
 *   controller: 10.0.0.5:7443            # optional, --controller wins
 *   stateDir: /var/lib/wrtfleet/proxy    # applied/pending state per router
 *   knownHosts: /var/lib/wrtfleet/proxy/known_hosts.json   # TOFU records
 *   defaults: { user: root, port: 22, keyPath: /etc/wrtfleet/id_ed25519 }
 *   routers:
 *     - host: 192.168.1.1
 *       identity: site-a:r1                # optional; derived from the hardware otherwise
 *       hostKeyFingerprint: SHA256:...     # pinned; or tofu: true to record the first key seen
 *       password: ...  | passwordEnv: VAR  | keyPath: ...
 *       paths: { helper: /usr/sbin/wf-tcx }   # wf-tcx on the router
 *
 * A router without a fingerprint and without `tofu: true` is refused at load time: trust on
 * first use has to be asked for. Recorded keys are pinned from then on.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { DatapathPaths } from '../apply/live.js';
import type { ReconnectPolicy } from '../reconnect-policy.js';
import { normalizeFingerprint, SshHost } from '../../core/host/ssh-host.js';
import { RouterAgent } from '../router-agent.js';

export interface ProxyRouterConfig {
  host: string;
  port: number;
  user: string;
  identity?: string;
  name?: string;
  password?: string;
  keyPath?: string;
  passphrase?: string;
  hostKeyFingerprint?: string;
  tofu: boolean;
  commandTimeoutMs?: number;
  paths?: DatapathPaths;
}

export interface ProxyConfig {
  controller?: string;
  stateDir: string;
  knownHosts: string;
  routers: ProxyRouterConfig[];
}

export class ProxyConfigError extends Error {}

function str(v: unknown, where: string, required = false): string | undefined {
  if (v === undefined || v === null) {
    if (required) throw new ProxyConfigError(`${where} is required`);
    return undefined;
  }
  if (typeof v !== 'string' || v.trim() === '') throw new ProxyConfigError(`${where} must be a non-empty string`);
  return v;
}

async function parseText(path: string, text: string): Promise<unknown> {
  if (/\.json$/i.test(path) || text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ProxyConfigError(`${path}: invalid JSON: ${(err as Error).message}`);
    }
  }
  const yaml = await import('yaml');
  try {
    return yaml.parse(text);
  } catch (err) {
    throw new ProxyConfigError(`${path}: invalid YAML: ${(err as Error).message}`);
  }
}

/** Parses and validates a config document; relative paths are relative to `baseDir`. */
export function validateProxyConfig(doc: unknown, baseDir: string, env: NodeJS.ProcessEnv = process.env): ProxyConfig {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new ProxyConfigError('the config must be an object with a `routers` list');
  const d = doc as Record<string, unknown>;
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const defaults = (d.defaults ?? {}) as Record<string, unknown>;
  if (!Array.isArray(d.routers) || d.routers.length === 0)
    throw new ProxyConfigError('`routers` must be a non-empty list');
  const seen = new Set<string>();
  const routers = d.routers.map((raw, i): ProxyRouterConfig => {
    const where = `routers[${i}]`;
    if (!raw || typeof raw !== 'object') throw new ProxyConfigError(`${where} must be an object`);
    const r = { ...defaults, ...(raw as Record<string, unknown>) };
    const host = str(r.host, `${where}.host`, true)!;
    const port = r.port === undefined ? 22 : Number(r.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new ProxyConfigError(`${where}.port must be 1-65535`);
    const passwordEnv = str(r.passwordEnv, `${where}.passwordEnv`);
    const password = str(r.password, `${where}.password`) ?? (passwordEnv ? env[passwordEnv] : undefined);
    if (passwordEnv && !password)
      throw new ProxyConfigError(`${where}.passwordEnv: environment variable ${passwordEnv} is not set`);
    const keyPath = str(r.keyPath, `${where}.keyPath`);
    if (!password && !keyPath) throw new ProxyConfigError(`${where} (${host}): give keyPath, password or passwordEnv`);
    const fp = str(r.hostKeyFingerprint, `${where}.hostKeyFingerprint`);
    if (fp && !/^(SHA256:)?[A-Za-z0-9+/]{43}=?$/.test(fp.trim()))
      throw new ProxyConfigError(
        `${where}.hostKeyFingerprint must look like SHA256:<43 base64 characters> (ssh-keygen -lf)`,
      );
    const tofu = r.tofu === true;
    if (!fp && !tofu)
      throw new ProxyConfigError(
        `${where} (${host}): no hostKeyFingerprint; pin one, or set tofu: true to record the first key seen`,
      );
    const identity = str(r.identity, `${where}.identity`);
    const key = identity ?? `${host}:${port}`;
    if (seen.has(key)) throw new ProxyConfigError(`${where}: duplicate router ${key}`);
    seen.add(key);
    return {
      host,
      port,
      user: str(r.user, `${where}.user`) ?? 'root',
      identity,
      name: str(r.name, `${where}.name`),
      password,
      keyPath: keyPath ? abs(keyPath) : undefined,
      passphrase: str(r.passphrase, `${where}.passphrase`),
      hostKeyFingerprint: fp ? normalizeFingerprint(fp) : undefined,
      tofu,
      commandTimeoutMs: r.commandTimeoutMs === undefined ? undefined : Number(r.commandTimeoutMs),
      paths: (r.paths as DatapathPaths | undefined) ?? undefined,
    };
  });
  const stateDir = abs(str(d.stateDir, 'stateDir') ?? './data/proxy-state');
  return {
    controller: str(d.controller, 'controller'),
    stateDir,
    knownHosts: abs(str(d.knownHosts, 'knownHosts') ?? join(stateDir, 'known_hosts.json')),
    routers,
  };
}

export async function loadProxyConfig(path: string): Promise<ProxyConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ProxyConfigError(`cannot read ${path}: ${(err as Error).message}`);
  }
  return validateProxyConfig(await parseText(path, text), dirname(resolve(path)));
}

/** host:port -> fingerprint, recorded by TOFU and pinned from then on. */
class KnownHosts {
  private entries: Record<string, string> = {};
  private writing: Promise<void> = Promise.resolve();
  constructor(private readonly path: string) {
    try {
      this.entries = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
    } catch {
      this.entries = {};
    }
  }
  get(key: string): string | undefined {
    return this.entries[key];
  }
  record(key: string, fingerprint: string): Promise<void> {
    this.entries[key] = fingerprint;
    const snapshot = JSON.stringify(this.entries, null, 2);
    this.writing = this.writing.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFile(`${this.path}.tmp`, snapshot, { mode: 0o600 });
      await rename(`${this.path}.tmp`, this.path);
    });
    return this.writing;
  }
}

export interface ProxyOptions {
  controller: string;
  reconnect?: Partial<ReconnectPolicy>;
  log?: (message: string) => void;
  /** Per-router overrides for tests and benchmarks. */
  agent?: Partial<ConstructorParameters<typeof RouterAgent>[0]>;
}

export interface Proxy {
  agents: RouterAgent[];
  hosts: SshHost[];
  stop(): Promise<void>;
}

function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, '_');
}

export function startProxy(config: ProxyConfig, options: ProxyOptions): Proxy {
  const known = new KnownHosts(config.knownHosts);
  const agents: RouterAgent[] = [];
  const hosts: SshHost[] = [];
  const proxyHost = hostname();
  for (const r of config.routers) {
    const hostKey = `${r.host}:${r.port}`;
    const pinned = r.hostKeyFingerprint ?? known.get(hostKey);
    const ssh = new SshHost({
      host: r.host,
      port: r.port,
      username: r.user,
      password: r.password,
      privateKey: r.keyPath ? readFileSync(r.keyPath) : undefined,
      passphrase: r.passphrase,
      hostKeyFingerprint: pinned,
      onNewHostKey: pinned
        ? undefined
        : (fp) => {
            options.log?.(`${hostKey}: trusting new host key ${fp} on first use (recorded in ${config.knownHosts})`);
            return known.record(hostKey, fp);
          },
      commandTimeoutMs: r.commandTimeoutMs,
      label: `${r.user}@${hostKey}`,
    });
    hosts.push(ssh);
    const agent = new RouterAgent({
      host: ssh,
      controller: options.controller,
      placement: 'proxy',
      proxyHost,
      identity: r.identity,
      name: r.name,
      reconnect: options.reconnect,
      stateFile: join(config.stateDir, `${safeName(r.identity ?? hostKey)}.json`),
      paths: r.paths,
      log: options.log,
      ...options.agent,
    });
    agents.push(agent);
  }
  for (const a of agents) a.start();
  return {
    agents,
    hosts,
    async stop() {
      await Promise.all(agents.map((a) => a.stop().catch(() => undefined)));
    },
  };
}
