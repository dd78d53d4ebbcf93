/**
 * `npm run -s agent -- <command>`: the agent's entry point.
 *
 *   facts [--root DIR]                       print the router's facts and capabilities as JSON
 *   run --controller HOST:PORT[,HOST:PORT...] [--root DIR] [--identity ID] [--name NAME] [--placement on_router|proxy]
 *                                            manage one router (this machine, or a fixture tree)
 *   fleet --controller HOST:PORT[,HOST:PORT...] [--fixtures DIR] [--per-model N] [--first-serial N]
 *         [--credentials-dir DIR [--enroll-token-file FILE --ca-fingerprint SHA256:...]]
 *         [--apply-delay-ms MS] [--confirm-window-seconds S] [--reconnect-jitter-ms MS] [--log-applies]
 *                                            a simulated fleet: N agents per fixture model
 *   proxy --config FILE [--controller HOST:PORT]
 *                                            manage the routers listed in FILE over SSH
 *   probe                                    probe this machine's capabilities (loads a program)
 *
 * run also takes --state-file FILE (default /etc/wrtfleet/state.json: survives a reboot, so
 * an unconfirmed apply still rolls back), --pin-root DIR, --helper PATH (wf-tcx), --upload-dir DIR.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { factsSummary, predictCapabilities } from '../core/capabilities.js';
import { collectFacts } from '../core/facts/index.js';
import { FixtureHost } from './sim/fixture-host.js';
import type { RouterHost } from '../core/host/router-host.js';
import { LocalHost } from '../core/host/local-host.js';
import { probeCapabilities } from './probe/index.js';
import { RouterAgent } from './router-agent.js';
import { deriveRouterIdentity } from '../core/identity.js';
import { heapSettler } from './heap-settle.js';

const USAGE = `usage: agent facts [--root DIR]
       agent run --controller HOST:PORT[,HOST:PORT...] [--root DIR] [--identity ID] [--name NAME] [--placement on_router|proxy]
             [--credentials-dir DIR] [--enroll-token-file FILE --ca-fingerprint SHA256:...] [--insecure]
       agent fleet --controller HOST:PORT[,HOST:PORT...] [--fixtures DIR] [--per-model N] [--first-serial N]
             [--credentials-dir DIR [--enroll-token-file FILE --ca-fingerprint SHA256:...]]
             [--apply-delay-ms MS] [--confirm-window-seconds S] [--reconnect-jitter-ms MS] [--log-applies]
       agent proxy --config FILE [--controller HOST:PORT]
       agent probe
  run options: --state-file FILE --pin-root DIR --helper PATH --upload-dir DIR`;

function fail(message: string): never {
  console.error(`agent: ${message}\n${USAGE}`);
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);
const { values } = (() => {
  try {
    return parseArgs({
      args: rest,
      options: {
        root: { type: 'string' },
        controller: { type: 'string' },
        identity: { type: 'string' },
        name: { type: 'string' },
        placement: { type: 'string', default: 'on_router' },
        fixtures: { type: 'string' },
        'per-model': { type: 'string', default: '4' },
        'first-serial': { type: 'string', default: '1' },
        config: { type: 'string' },
        'state-file': { type: 'string' },
        'pin-root': { type: 'string' },
        helper: { type: 'string' },
        'upload-dir': { type: 'string' },
        'credentials-dir': { type: 'string' },
        'enroll-token-file': { type: 'string' },
        'ca-fingerprint': { type: 'string' },
        insecure: { type: 'boolean', default: false },
        'apply-delay-ms': { type: 'string' },
        'confirm-window-seconds': { type: 'string' },
        'reconnect-jitter-ms': { type: 'string' },
        'log-applies': { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
})();

/** A whole number flag within [min, max], or undefined when it was not given. */
function integerFlag(name: string, min: number, max: number): number | undefined {
  const raw = (values as Record<string, unknown>)[name] as string | undefined;
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

const hostFor = (root: string | undefined): RouterHost => (root ? new FixtureHost(root) : new LocalHost());

/**
 * The agent's mTLS identity: the certificate kept in --credentials-dir, or, on first start,
 * one obtained with a single-use enrollment token (read from a file, so it never shows in
 * `ps`) and the controller CA's pinned fingerprint. The identity in the certificate is the
 * router's from then on.
 */
async function agentTrust(host: RouterHost, controller: string) {
  // Loaded only here: the x509 code is not part of an insecure agent's footprint.
  const { AgentCredentials } = await import('./enrollment/agent-credentials.js');
  const { keepRenewed } = await import('./enrollment/certificate-renewal.js');
  const dir = values['credentials-dir'] ?? (values.root ? undefined : '/etc/wrtfleet/credentials');
  if (!dir) fail('--credentials-dir is required (or --insecure for a plaintext controller)');
  const saved = await AgentCredentials.load(dir);
  if (saved) return { credentials: saved, identity: saved.identity.identity, keepRenewed };
  if (!values['enroll-token-file'] || !values['ca-fingerprint']) {
    fail(
      `no credentials in ${dir}: enroll once with --enroll-token-file FILE --ca-fingerprint SHA256:... (or --insecure for a plaintext controller)`,
    );
  }
  const token = (await readFile(values['enroll-token-file'], 'utf8')).trim();
  const identity = values.identity ?? (await deriveRouterIdentity(host, await collectFacts(host)));
  try {
    const credentials = await AgentCredentials.enroll({
      address: controller,
      token,
      identity,
      name: values.name,
      caFingerprint: values['ca-fingerprint'],
      stateDir: dir,
    });
    console.error(`agent: enrolled as ${identity}`);
    return { credentials, identity, keepRenewed };
  } catch (err) {
    return fail(`enrollment failed: ${(err as Error).message}`);
  }
}

/**
 * `agent fleet --credentials-dir DIR`: each simulated router keeps its own credentials in
 * DIR/<identity>, as a real agent does; one without them enrolls with the next token of
 * --enroll-token-file (one token per line), so a fleet runs over mutual TLS as production does.
 */
async function fleetEnrollment(controller: string) {
  const { AgentCredentials } = await import('./enrollment/agent-credentials.js');
  const dir = values['credentials-dir']!;
  const tokens = values['enroll-token-file']
    ? (await readFile(values['enroll-token-file'], 'utf8'))
        .split('\n')
        .map((t) => t.trim())
        .filter((t) => t !== '')
    : [];
  return async (identity: string, name: string) => {
    const stateDir = path.join(dir, identity.replace(/[^A-Za-z0-9._-]/g, '_'));
    const saved = await AgentCredentials.load(stateDir);
    if (saved) return saved;
    const token = tokens.shift();
    if (!token || !values['ca-fingerprint'])
      throw new Error(
        `${identity} has no credentials in ${stateDir}: give --enroll-token-file (one token per router to enroll) and --ca-fingerprint`,
      );
    return AgentCredentials.enroll({
      address: controller,
      token,
      identity,
      name,
      caFingerprint: values['ca-fingerprint'],
      stateDir,
    });
  };
}

function onSignals(stop: () => Promise<void>) {
  const handler = () => void stop().then(() => process.exit(0));
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}

switch (command) {
  case 'facts': {
    const host = hostFor(values.root);
    const facts = await collectFacts(host);
    process.stdout.write(`${JSON.stringify(factsSummary(facts, predictCapabilities(facts)), null, 2)}\n`);
    break;
  }
  case 'run': {
    if (!values.controller) fail('--controller is required');
    if (values.placement !== 'on_router' && values.placement !== 'proxy')
      fail('--placement must be on_router or proxy');
    const host = hostFor(values.root);
    const trust = values.insecure
      ? { credentials: undefined, identity: values.identity, keepRenewed: undefined }
      : await agentTrust(host, values.controller!);
    const agent = new RouterAgent({
      host,
      controller: values.controller,
      placement: values.placement,
      credentials: trust.credentials?.linkCredentials,
      identity: trust.identity,
      name: values.name,
      // A fixture tree cannot hold state or run anything; a real router keeps its state across reboots.
      stateFile: values.root ? values['state-file'] : (values['state-file'] ?? '/etc/wrtfleet/state.json'),
      paths: { pinRoot: values['pin-root'], helper: values.helper, uploadDir: values['upload-dir'] },
      log: (m) => console.error(`agent: ${m}`),
    });
    agent.link.on('welcome', (w) => console.error(`agent: connected as router ${w.routerId}`));
    // While refused for good the link's rare checks are refused too: the refusal was said once.
    agent.link.on('disconnected', (d) => agent.link.refusal || console.error(`agent: disconnected (${d.details})`));
    agent.link.on('retry', (ms) => console.error(`agent: reconnecting in ${ms} ms`));
    agent.start();
    // With --expose-gc (the procd init script): the garbage of periodic work does not pile up either.
    heapSettler.every();
    const stopRenewing =
      trust.credentials && trust.keepRenewed
        ? trust.keepRenewed(agent.link, trust.credentials, {
            onError: (e) => console.error(`agent: certificate renewal failed: ${e.message}`),
          })
        : () => {};
    onSignals(async () => {
      stopRenewing();
      heapSettler.stop();
      await agent.stop();
    });
    break;
  }
  case 'fleet': {
    // Lazily, like proxy: the simulated fleet (and its enrollment/x509 code) is not part of an agent's idle footprint.
    const { startSimulatedFleet, stopFleet } = await import('./sim/simulated-fleet.js');
    const { defaultFixturesDir, fixtureModels } = await import('./sim/fixtures.js');
    if (!values.controller) fail('--controller is required');
    const perModel = Number(values['per-model']);
    if (!Number.isInteger(perModel) || perModel < 1 || perModel > 10_000)
      fail('--per-model must be an integer from 1 to 10000');
    // Fleets in several processes take serials apart, so their identities never collide.
    const firstSerial = Number(values['first-serial']);
    if (!Number.isInteger(firstSerial) || firstSerial < 1 || firstSerial > 1_000_000)
      fail('--first-serial must be an integer from 1 to 1000000');
    const roots = await fixtureModels(values.fixtures ?? defaultFixturesDir());
    const credentialsFor = values['credentials-dir'] ? await fleetEnrollment(values.controller!) : undefined;
    // Tests time a simulated router's apply, its commit-confirm window and its return after a cut.
    const jitter = integerFlag('reconnect-jitter-ms', 0, 600_000);
    const agents = await startSimulatedFleet({
      controller: values.controller,
      fixtureRoots: roots,
      perModel,
      firstSerial,
      credentialsFor,
      applyDelayMs: integerFlag('apply-delay-ms', 0, 600_000),
      confirmWindowSeconds: integerFlag('confirm-window-seconds', 1, 3_600),
      reconnect: jitter === undefined ? undefined : { jitterWindowMs: jitter },
      log: values['log-applies'] ? (m) => console.error(`agent: ${m}`) : undefined,
      onRefused: (identity, message) => console.error(`agent: router ${identity}: ${message}`),
    }).catch((err: Error) => fail(err.message));
    console.error(
      `agent: started ${agents.length} simulated routers against ${values.controller}${credentialsFor ? ' over mTLS' : ' (plaintext)'}`,
    );
    onSignals(() => stopFleet(agents));
    break;
  }
  case 'proxy': {
    // Loaded here only: ssh2 is costly at import (its poly1305 WebAssembly heap), and the
    // on-router placement, with its 50 MB budget, never needs it (docs/BENCHMARKS.md#agent).
    const { loadProxyConfig, ProxyConfigError, startProxy } = await import('./proxy/index.js');
    if (!values.config) fail('--config is required');
    let config;
    try {
      config = await loadProxyConfig(values.config);
    } catch (err) {
      if (err instanceof ProxyConfigError) fail(`config: ${err.message}`);
      throw err;
    }
    const controller = values.controller ?? config.controller;
    if (!controller) fail('--controller is required (or `controller:` in the config)');
    const proxy = startProxy(config, { controller, log: (m) => console.error(`agent: ${m}`) });
    console.error(`agent: proxy managing ${proxy.agents.length} router(s) over SSH against ${controller}`);
    onSignals(() => proxy.stop());
    break;
  }
  case 'probe': {
    const host = hostFor(values.root);
    const facts = await collectFacts(host);
    const probed = await probeCapabilities(host, {
      endian: facts.endian,
      pinRoot: values['pin-root'],
      helper: values.helper,
    });
    process.stdout.write(`${JSON.stringify({ predicted: factsSummary(facts).capabilities, probed }, null, 2)}\n`);
    break;
  }
  default:
    fail(command ? `unknown command "${command}"` : 'no command given');
}
