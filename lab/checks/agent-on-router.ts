/**
 * The packaged agent (agent.cjs, `npm run agent:bundle`) running ON the mipsel guest under
 * Debian's Node.js 18, as on a generic Linux router with Node (OpenWrt has no node for MIPS: its
 * MT7621 and ath79 routers run the proxy placement, which the other checks drive): it
 * enrolls with a one-time token against a controller on the host over mutual TLS, says Hello
 * with the router's facts (compared with the proxy's view over SSH), gets a profile with the
 * four rewrites, attaches them to the WAN (eth1) with cls_bpf, reports telemetry, and idles
 * within the memory a router can spare. It runs with the procd init script's node flags and
 * environment (lab/agent-on-guest.ts); bench/lab measures its start-up time over restarts.
 */
import { isDeepStrictEqual } from 'node:util';
import { factsSummary } from '../../core/capabilities.js';
import { collectFacts, type RouterFacts } from '../../core/facts/index.js';
import {
  agentLog,
  agentRss,
  enrollAgent,
  installAgentBundle,
  MIN_NODE_MAJOR,
  startLabController,
  stopAgent,
  waitFor,
} from '../agent-on-guest.js';
import type { Guest } from '../guest.js';
import { resultOf, type CheckResult, type CheckStep, type LabCheck } from './lab-check.js';

/** How long the agent sits connected and applied before its RSS is read. */
const IDLE_MS = 10_000;

const step = (name: string, ok: boolean, detail: string): CheckStep => ({ name, ok, detail });

interface RouterView {
  id: string;
  identity: string;
  status: string;
  datapath: string;
  facts: RouterFacts | null;
  lastApplyStatus: string | null;
  appliedRevision: { revision: number } | number | null;
  liveState: {
    telemetry?: {
      programs?: { program: string; packetsSeen?: number | string; packetsRewritten?: number | string }[];
      agentRssBytes?: number | string;
    };
  } | null;
}

/** The rewrites on the WAN, eBPF required, a confirm window longer than an emulated apply. */
export const LAB_PROFILE_SPEC = {
  l3Rewrite: { ttl: { value: 64 }, ipid: true, tcpts: true, tcpwin: { value: 65535 }, ebpf: 'on' },
  commitConfirm: { windowSeconds: 900 },
} as const;

async function runOnRouter(guest: Guest): Promise<CheckResult> {
  const steps: CheckStep[] = [];
  const numbers: Record<string, number> = {};
  const node = await guest.run(['node', '--version']);
  const major = Number(/^v(\d+)/.exec(node.stdout.trim())?.[1]);
  steps.push(
    step('node', major >= MIN_NODE_MAJOR, `guest node ${node.stdout.trim()} (bundle targets >= ${MIN_NODE_MAJOR})`),
  );
  const installed = await installAgentBundle(guest);
  numbers.bundleBytes = installed.bytes;
  const lab = await startLabController(guest);
  try {
    // First start: enrollment (key pair, CSR, Enroll) before the Hello.
    const enrolled = await enrollAgent(guest, lab);
    numbers.enrollToHelloMs = enrolled.enrollToHelloMs;
    steps.push(
      step(
        'enrolled',
        /enrolled as/.test(await agentLog(guest)),
        `enrolled as ${enrolled.identity} over mTLS, Hello after ${(enrolled.enrollToHelloMs / 1000).toFixed(0)} s`,
      ),
    );
    const routerId = (await lab.api<{ items: RouterView[] }>('/v1/routers')).body.items[0]!.id;
    // What the agent learned on the router, as the controller stored it from the Hello, must
    // read as the proxy's view over SSH does (the facts check tests that view against the guest).
    const reported = (await lab.api<RouterView>(`/v1/routers/${routerId}`)).body.facts;
    const overSsh = await collectFacts(guest.host);
    const same = reported != null && isDeepStrictEqual(factsSummary(reported), factsSummary(overSsh));
    steps.push(
      step(
        'facts',
        same,
        same
          ? `the agent reported ${reported.arch} ${reported.endian}-endian, ${reported.cpu.model}, kernel ${reported.kernel}: the proxy's view over SSH`
          : `reported ${JSON.stringify(reported).slice(0, 300)}; over SSH ${JSON.stringify(factsSummary(overSsh)).slice(0, 300)}`,
      ),
    );
    const saved = await lab.api('/v1/profiles/lab-wan', { method: 'PUT', body: { spec: LAB_PROFILE_SPEC } });
    steps.push(
      step('profile', saved.status === 201 || saved.status === 200, `profile lab-wan saved (${saved.status})`),
    );
    const preview = await lab.api<{
      items: {
        plan: {
          satisfiable: boolean;
          datapath: { mode: string; attach: string; bpfObject: string };
          offload: { mode: string };
        };
      }[];
    }>('/v1/plan-preview', { method: 'POST', body: { profile: 'lab-wan', selector: { ids: [routerId] } } });
    const plan = preview.body.items[0]?.plan;
    steps.push(
      step(
        'plan',
        plan?.satisfiable === true &&
          plan.datapath.mode === 'ebpf' &&
          plan.datapath.attach === 'cls_bpf' &&
          plan.datapath.bpfObject === 'bpfel',
        `plan: ${plan?.datapath.mode}/${plan?.datapath.attach}/${plan?.datapath.bpfObject}, offload ${plan?.offload.mode} (not OpenWrt: no uci)`,
      ),
    );
    const applyStarted = Date.now();
    await lab.api('/v1/rollouts', { method: 'POST', body: { profile: 'lab-wan', selector: { ids: [routerId] } } });
    const applied = await waitFor('the apply result', 900_000, async () => {
      const r = (await lab.api<RouterView>(`/v1/routers/${routerId}`)).body;
      return r.lastApplyStatus && r.lastApplyStatus !== 'pending' ? r : undefined;
    });
    numbers.applyMs = Date.now() - applyStarted;
    const tc = await guest.run(['tc', 'filter', 'show', 'dev', 'eth1', 'egress']);
    steps.push(
      step(
        'applied',
        applied.lastApplyStatus === 'applied' && /bpf/.test(tc.stdout) && /direct-action/.test(tc.stdout),
        `apply ${applied.lastApplyStatus} in ${(numbers.applyMs / 1000).toFixed(0)} s; eth1 egress: ${/name (\S+)/.exec(tc.stdout)?.[1] ?? tc.stdout.trim().slice(0, 80)}`,
      ),
    );
    // WAN egress traffic for the counters: the guest pings the WAN peer.
    await guest.run(['ping', '-c', '10', '-i', '0.2', guest.addresses.wan.peer]);
    const telemetry = await waitFor('telemetry with counters', 600_000, async () => {
      const t = (await lab.api<RouterView>(`/v1/routers/${routerId}`)).body.liveState?.telemetry;
      const wan = (t?.programs ?? []).filter((c) => c.program.startsWith('eth1/'));
      const seen = wan.reduce((n, c) => n + Number(c.packetsSeen ?? 0), 0);
      const rewritten = wan.reduce((n, c) => n + Number(c.packetsRewritten ?? 0), 0);
      return seen >= 10
        ? { keys: wan.map((c) => c.program), seen, rewritten, rss: Number(t?.agentRssBytes ?? 0) }
        : undefined;
    });
    numbers.telemetryPacketsSeen = telemetry.seen;
    steps.push(
      step(
        'telemetry',
        telemetry.rewritten > 0,
        `telemetry: ${telemetry.seen} packets seen, ${telemetry.rewritten} rewritten on ${telemetry.keys.join(', ')}; agent reports RSS ${(telemetry.rss / 2 ** 20).toFixed(1)} MiB`,
      ),
    );
    // Idle: connected, applied, nothing to do; RSS as the kernel counts it.
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const rss = await agentRss(guest);
    numbers.idleRssKiB = rss.rssKiB;
    numbers.peakRssKiB = rss.peakKiB;
    steps.push(
      step(
        'rss',
        numbers.idleRssKiB > 0 && numbers.idleRssKiB < 64 * 1024,
        `idle RSS ${(numbers.idleRssKiB / 1024).toFixed(1)} MiB (peak ${(numbers.peakRssKiB / 1024).toFixed(1)} MiB)`,
      ),
    );
    return resultOf(steps, numbers);
  } finally {
    await stopAgent(guest).catch(() => undefined);
    await lab.stop();
  }
}

export const agentOnRouter: LabCheck = {
  name: 'agent-on-router',
  arches: ['mipsel'],
  run: runOnRouter,
};
