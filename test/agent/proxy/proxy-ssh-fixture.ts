/**
 * The proxy placement for real, shared by the proxy e2e files: a namespace "router" running
 * Debian's sshd (its own bpffs, a WAN veth to a peer namespace with the default route),
 * managed over SSH by a RouterAgent that talks to a real gRPC controller on loopback
 * (test/support/fake-controller.ts). Each file that calls proxySshE2e() gets its own router,
 * controller and agent, started before its tests and torn down after them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ApplyResult, DesiredState } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { FileStateStore } from '../../../agent/apply/state-store.js';
import { LOCAL_TCX_HELPER } from '../../../agent/datapath/programs.js';
import { SshHost } from '../../../core/host/ssh-host.js';
import { RouterAgent } from '../../../agent/router-agent.js';
import { eventually } from '../../support/controller.js';
import { FakeController } from '../../support/fake-controller.js';
import { FaultHost } from '../../support/fault-host.js';
import { fullState } from '../../support/router-state.js';
import { SshRouter } from '../../support/ssh-router.js';

/** TCX links on the WAN: the loader's default layout runs the four rewrites as one wf_chain program. */
export const CHAIN_LINKS = 1;
export const ID = 'proxy-e2e:01';
export const SPEC = { l3Rewrite: { ttl: { value: 77 }, tcpwin: { value: 29200 } }, flowOffload: { mode: 'auto' } };

export interface ProxySshE2e {
  router: SshRouter;
  controller: FakeController;
  /** The agent under test; a test that restarts it assigns the new one here. */
  agent: RouterAgent;
  /** The SSH host of the current agent, wrapped so that tests can inject failures. */
  faults: FaultHost;
  /** The last revision number desired() handed out; a refused one may be taken back. */
  revision: number;
  logs: string[];
  newAgent(extra?: Partial<ConstructorParameters<typeof RouterAgent>[0]>): RouterAgent;
  desired(spec: unknown, extra?: Partial<DesiredState>): DesiredState;
  /** Sends a desired state and waits for its ApplyResult. */
  push(d: DesiredState): Promise<ApplyResult>;
  /** The router's datapath as seen from inside it (not through the agent). */
  state(): Promise<Record<string, string>>;
  /** Programs on wan0's TCX chain, read with the helper inside the router. */
  tcxPrograms(): Promise<number>;
}

/** Registers the router, controller and agent for the calling test file (beforeAll/afterAll). */
export function proxySshE2e(): ProxySshE2e {
  const router = new SshRouter();
  const controller = new FakeController();
  const work = mkdtempSync(join(tmpdir(), 'wf-e2e-'));
  let iperf: ChildProcess | undefined;
  const e: ProxySshE2e = {
    router,
    controller,
    agent: undefined as unknown as RouterAgent,
    faults: undefined as unknown as FaultHost,
    revision: 0,
    logs: [],
    newAgent(extra = {}) {
      const ssh = new SshHost({
        host: router.addr.router,
        username: 'root',
        privateKey: router.clientKey,
        hostKeyFingerprint: router.hostKeyFingerprint,
        commandTimeoutMs: 4_000,
        backoff: { initialMs: 100, maxMs: 1_000 },
      });
      e.faults = new FaultHost(ssh);
      return new RouterAgent({
        host: e.faults,
        controller: controller.address,
        placement: 'proxy',
        identity: ID,
        proxyHost: 'test-proxy',
        store: new FileStateStore(join(work, 'state.json')),
        reconnect: { jitterWindowMs: 200, initialDelayMs: 100, maxDelayMs: 500 },
        log: (m) => e.logs.push(m),
        // The helper as an operator would configure it; 'the proxy brings its own wf-tcx' leaves it out.
        paths: { helper: LOCAL_TCX_HELPER },
        ...extra,
      });
    },
    desired(spec, extra = {}) {
      e.revision += 1;
      return {
        profile: 'p-e2e',
        revision: e.revision,
        spec: spec as DesiredState['spec'],
        confirmWindowSeconds: 0,
        rolloutId: '',
        ...extra,
      };
    },
    async push(d) {
      const before = controller.results(ID).length;
      controller.send(ID, { $case: 'desiredState', value: d });
      return eventually(async () => controller.results(ID)[before], 20_000, `ApplyResult for revision ${d.revision}`);
    },
    async state() {
      return fullState(router.inside, ['wan0', 'mgmt0']);
    },
    async tcxPrograms() {
      const idx = JSON.parse((await router.inside.run(['ip', '-j', 'link', 'show', 'wan0'])).stdout)[0]
        .ifindex as number;
      return (
        JSON.parse((await router.inside.run([LOCAL_TCX_HELPER, 'query', String(idx)])).stdout) as {
          programs: unknown[];
        }
      ).programs.length;
    },
  };

  beforeAll(async () => {
    await router.start();
    await controller.start();
    iperf = spawn(
      'nsenter',
      [`--net=/run/netns/${router.ns.peer}`, 'iperf3', '-s', '-B', router.addr.peer, '-p', '5201'],
      { stdio: 'ignore' },
    );
    e.agent = e.newAgent();
    e.agent.start();
    await eventually(async () => controller.connected(ID), 20_000, 'agent connected');
  }, 120_000);

  afterAll(async () => {
    await e.agent?.stop().catch(() => undefined);
    iperf?.kill('SIGKILL');
    await controller.stop();
    await router.stop();
    rmSync(work, { recursive: true, force: true });
  });
  return e;
}
