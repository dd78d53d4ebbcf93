/**
 * The on-router placement's installation over SSH: the bundle, the BPF objects for the router's
 * endianness (and wf-tcx when it was built for the router's CPU), the procd init script and the
 * UCI config (plus a one-time enrollment token, 0600, and the CA fingerprint, when agents use
 * mutual TLS), then the service. On a Linux box without procd (no /etc/rc.common) the agent is
 * started detached with a pid file instead. The agent's command line is agent/main.ts's `run`:
 * `--credentials-dir` (its key and certificate, kept after the first enrollment),
 * `--enroll-token-file` + `--ca-fingerprint` (first start only), `--insecure` for a plaintext
 * controller.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RouterFacts } from '../../core/facts/index.js';
import { shellQuote as q, type SshHost } from '../../core/host/ssh-host.js';
import {
  AGENT_ENTRY_FILE,
  forgetOverSysupgradeScript,
  keepOverSysupgradeScript,
  OLD_AGENT_ENTRY_FILE,
  tcxHelperBinaryFor,
} from '../../agent/index.js';
import type { ControllerSecurity } from '../auth/security.js';
import { StepFailure, type Undo } from './job-failure.js';

/** The agent to install: who it is, and the router's node binary and facts. */
export interface OnRouterAgent {
  node: string;
  identity: string;
  name: string;
  tags: string[];
  /** Who asked for the onboarding: the enrollment token's creator. */
  actor: string;
  facts: RouterFacts;
}

export interface OnRouterSetup {
  /** Where `npm run agent:bundle` wrote the agent (default dist/agent). */
  bundleDir?: string;
  /** Install root on the router (tests: a scratch directory); procd is used only without one. */
  prefix?: string;
  /** host:port the agent dials. */
  controller: string;
  security: Pick<ControllerSecurity, 'pki' | 'enrollmentTokens'>;
}

type RouterFiles = ReturnType<typeof routerFiles>;

/** With mutual TLS: where the one-time token went, and the CA the agent pins. */
interface Trust {
  tokenFile: string;
  caFingerprint: string;
}

function routerFiles(p: string) {
  const home = `${p}/usr/lib/wrtfleet`;
  return {
    home,
    init: `${p}/etc/init.d/wrtfleet-agent`,
    config: `${p}/etc/config/wrtfleet`,
    stateDir: `${p}/etc/wrtfleet`,
    credentials: `${p}/etc/wrtfleet/credentials`,
    token: `${p}/etc/wrtfleet/enrollment-token`,
    pid: `${p}/var/run/wrtfleet-agent.pid`,
    log: `${p}/tmp/wrtfleet-agent.log`,
    uploads: `${p}/tmp`,
    dirs: [`${home}/bpf/build`, `${p}/etc/init.d`, `${p}/etc/config`, `${p}/etc/wrtfleet`, `${p}/var/run`, `${p}/tmp`],
  };
}

/** Where Node.js 20+ runs on the router, or null: the on-router placement needs it. */
export async function nodeOnRouter(ssh: SshHost): Promise<{ path: string; version: string } | null> {
  const r = await ssh.run(['sh', '-c', 'p=$(command -v node) && echo "$p" && "$p" --version']);
  if (r.code !== 0) {
    if (/connection lost/.test(r.stderr)) throw new StepFailure(`lost the router during placement: ${r.stderr.trim()}`);
    return null;
  }
  const [path, version] = r.stdout.trim().split('\n');
  const major = Number(/^v(\d+)/.exec(version ?? '')?.[1] ?? 0);
  return path && major >= 20 ? { path, version: version! } : null;
}

/** Installs and starts the agent; pushes the undo that stops it and removes its files before touching anything. */
export async function installOnRouter(
  ssh: SshHost,
  agent: OnRouterAgent,
  setup: OnRouterSetup,
  undo: Undo[],
): Promise<{ enrollmentTokenFile?: string }> {
  const bundle = resolve(setup.bundleDir ?? 'dist/agent');
  if (!existsSync(join(bundle, AGENT_ENTRY_FILE)))
    throw new StepFailure(
      `the agent bundle is missing (${join(bundle, AGENT_ENTRY_FILE)}): run npm run agent:bundle on the controller`,
    );
  const prefix = setup.prefix ?? '';
  const files = routerFiles(prefix);
  const procd = (await ssh.run(['test', '-f', '/etc/rc.common'])).code === 0 && !prefix;
  undo.push(removal(ssh, files, procd, prefix));
  await uploadAgent(ssh, bundle, files, agent.facts);
  // A firmware upgrade that keeps the configuration keeps the agent, its settings and credentials.
  const keep = await ssh.run(['sh', '-c', keepOverSysupgradeScript(prefix)]);
  if (keep.code !== 0)
    throw new StepFailure(`listing the agent's files in /etc/sysupgrade.conf: ${keep.stderr.trim()}`);
  const trust = await uploadTrust(ssh, files, agent, setup.security);
  await ssh.writeFile(files.config, uciConfig(files, agent, setup.controller, trust), 0o644);
  const initScript = readFileSync(join(bundle, 'openwrt/wrtfleet-agent.init'), 'utf8');
  if (procd) await startService(ssh, files, initScript);
  else await startDetached(ssh, files, agent, setup.controller, trust, initScript);
  return { enrollmentTokenFile: trust?.tokenFile };
}

function removal(ssh: SshHost, files: RouterFiles, procd: boolean, prefix: string): Undo {
  return {
    what: `agent service stopped and its files removed (${files.home}, ${files.init}, ${files.config}, ${files.stateDir})`,
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
      const rm = await ssh.run(['rm', '-rf', files.home, files.init, files.config, files.stateDir, files.log]);
      if (rm.code !== 0) throw new Error(`removing the agent's files: ${rm.stderr.trim()}`);
      await ssh.run(['sh', '-c', forgetOverSysupgradeScript(prefix)]);
    },
  };
}

/** The agent's directories, its entry file, the BPF objects for the router's endianness and wf-tcx. */
async function uploadAgent(ssh: SshHost, bundle: string, files: RouterFiles, facts: RouterFacts): Promise<void> {
  const mkdir = async (d: string) => {
    const m = await ssh.run(['mkdir', '-p', d]);
    if (m.code !== 0) throw new StepFailure(`cannot create ${d} on the router: ${m.stderr.trim()}`);
  };
  for (const d of files.dirs) await mkdir(d);
  await ssh.writeFile(`${files.home}/${AGENT_ENTRY_FILE}`, readFileSync(join(bundle, AGENT_ENTRY_FILE)), 0o755);
  // Re-onboarding a router that runs an older bundle: its entry had another name.
  await ssh.run(['rm', '-f', `${files.home}/${OLD_AGENT_ENTRY_FILE}`]);
  const endian = facts.endian === 'big' ? 'bpfeb' : 'bpfel';
  const objDir = join(bundle, 'bpf/build', endian);
  if (existsSync(objDir)) {
    await mkdir(`${files.home}/bpf/build/${endian}`);
    for (const f of readdirSync(objDir))
      await ssh.writeFile(`${files.home}/bpf/build/${endian}/${f}`, readFileSync(join(objDir, f)), 0o644);
  }
  // wf-tcx is native code: the bundle's own build where the router has the controller's CPU,
  // otherwise the static build for the router's CPU (bpf/build.sh), when there is one.
  const helper = tcxHelperBinaryFor(facts.arch, facts.endian, join(bundle, 'bpf/build'));
  if (helper) await ssh.writeFile(`${files.home}/bpf/build/wf-tcx`, helper, 0o755);
}

/** With mutual TLS: a one-time enrollment token and the CA fingerprint; nothing for a plaintext controller. */
async function uploadTrust(
  ssh: SshHost,
  files: RouterFiles,
  agent: OnRouterAgent,
  security: OnRouterSetup['security'],
): Promise<Trust | undefined> {
  const pki = security.pki;
  if (!pki) return undefined;
  const caFingerprint = `SHA256:${pki.caFingerprint}`;
  // One-time, short-lived, bound to the router's name: useless once the agent has enrolled.
  const { secret } = await security.enrollmentTokens.create({
    routerName: agent.name,
    tags: agent.tags,
    ttlSeconds: 3600,
    createdBy: agent.actor,
  });
  await ssh.writeFile(files.token, `${secret}\n`, 0o600);
  await ssh.writeFile(`${files.stateDir}/ca-fingerprint`, `${caFingerprint}\n`, 0o644);
  return { tokenFile: files.token, caFingerprint };
}

function uciConfig(files: RouterFiles, agent: OnRouterAgent, controller: string, trust: Trust | undefined): string {
  const uci = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
  return [
    "config agent 'main'",
    "\toption enabled '1'",
    `\toption controller ${uci(controller)}`,
    `\toption identity ${uci(agent.identity)}`,
    `\toption name ${uci(agent.name)}`,
    `\toption state_file ${uci(`${files.stateDir}/state.json`)}`,
    `\toption node ${uci(agent.node)}`,
    ...(trust
      ? [
          `\toption credentials_dir ${uci(files.credentials)}`,
          `\toption enroll_token_file ${uci(files.token)}`,
          `\toption ca_fingerprint ${uci(trust.caFingerprint)}`,
        ]
      : ["\toption insecure '1'"]),
    '',
  ].join('\n');
}

async function startService(ssh: SshHost, files: RouterFiles, initScript: string): Promise<void> {
  await ssh.writeFile(files.init, initScript, 0o755);
  const s = await ssh.run(['sh', '-c', `${q(files.init)} enable && ${q(files.init)} start`], { timeoutMs: 30_000 });
  if (s.code !== 0) throw new StepFailure(`starting the agent service failed: ${s.stderr.trim()}`);
}

/** Without procd: started as the procd script starts it (the same node flags and environment, read from it). */
async function startDetached(
  ssh: SshHost,
  files: RouterFiles,
  agent: OnRouterAgent,
  controller: string,
  trust: Trust | undefined,
  initScript: string,
): Promise<void> {
  const trustArgs = trust
    ? [
        '--credentials-dir',
        files.credentials,
        '--enroll-token-file',
        files.token,
        '--ca-fingerprint',
        trust.caFingerprint,
      ]
    : ['--insecure'];
  const { nodeFlags, env } = agentRuntimeSettings(initScript);
  const argv = [
    agent.node,
    ...nodeFlags,
    `${files.home}/${AGENT_ENTRY_FILE}`,
    'run',
    '--placement',
    'on_router',
    '--controller',
    controller,
    '--identity',
    agent.identity,
    '--name',
    agent.name,
    '--state-file',
    `${files.stateDir}/state.json`,
    '--upload-dir',
    files.uploads,
    ...trustArgs,
  ];
  const cmd = argv.map(q).join(' ');
  const envPrefix = [...env, `WRTFLEET_HOME=${files.home}`].map(q).join(' ');
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
