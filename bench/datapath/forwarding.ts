/**
 * The network the throughput and run-time parts measure on (client -> router -> peer, each in its
 * own network namespace, GSO/TSO off on the router's wan0) and the modes they switch on the
 * router's egress. Traffic kinds, forwarded and router-originated, each with its own modes.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHAIN_OBJECT, LOCAL_TCX_HELPER, configuredObject } from '../../agent/datapath/programs.js';
import type { ProgramLayout } from '../../agent/datapath/attach-interface.js';
import { applyEbpf, detachEbpf, type DatapathEvidence } from '../../agent/datapath/loader.js';
import { applyNft, removeNft } from '../../agent/datapath/nft.js';
import type { NetnsHost } from '../../agent/datapath/netns-host.js';
import { runChecked } from '../../core/host/router-host.js';
import { Topology } from '../../test/support/datapath-topology.js';
import { buildEmptyObject, REWRITE, type Candidate } from './programs-under-test.js';

export const EMPTY_PROGRAM_MODE = 'empty program (TCX dispatch alone, control)';
/** The loader's wf_chain object, loaded once and switched by attach/detach alone (see tcxObject). */
export const PRELOADED_CHAIN_MODE = 'eBPF, wf_chain as the loader configures it, pre-loaded (TCX)';

export interface Mode {
  on: () => Promise<unknown>;
  off: () => Promise<unknown>;
  /** The BPF programs this mode runs per packet (while on), for the run-time accounting. */
  progIds?: () => Promise<number[]>;
}

/** Traffic from one host through the router's wan0 to the peer, and the modes it runs under. */
export interface TrafficKind {
  kind: string;
  from: NetnsHost;
  modes: Record<string, Mode>;
}

export interface Forwarding {
  topo: Topology;
  /** Forwarded (client -> router -> peer) first, then router-originated (router -> peer). */
  kinds: TrafficKind[];
  emptyProgram: Mode;
  candidates: Record<string, Mode>;
}

async function sh(argv: string[]) {
  execFileSync(argv[0]!, argv.slice(1));
}

/** Sets the network and the modes up, runs `measure` on them, and takes everything down again. */
export async function withForwarding<T>(candidates: Candidate[], measure: (f: Forwarding) => Promise<T>): Promise<T> {
  const topo = new Topology();
  const cleanups: (() => Promise<unknown>)[] = [];
  await topo.create();
  try {
    await topo.addDefaultRoute();
    await topo.startIperfServer();
    await sh(['nsenter', `--net=/run/netns/${topo.ns.router}`, 'ethtool', '-K', 'wan0', 'gso', 'off', 'tso', 'off']);
    // MTU-sized frames from the client, like a LAN NIC without GRO (see the e2e tests)
    await sh(['nsenter', `--net=/run/netns/${topo.ns.client}`, 'ethtool', '-K', 'cl0', 'gso', 'off', 'tso', 'off']);
    // clear_tcp_syn_ts makes a connection run without TCP timestamps, which changes TCP itself
    // (whatever removes the option): a sender without them is the baseline with the same TCP.
    const tsOff = (h: NetnsHost): Mode => ({
      on: () => h.run(['sysctl', '-qw', 'net.ipv4.tcp_timestamps=0']),
      off: () => h.run(['sysctl', '-qw', 'net.ipv4.tcp_timestamps=1']),
    });
    const chain = (ipIdGso: 'single-segment' | 'leave', layout: ProgramLayout = 'merged'): Mode => {
      let attached: DatapathEvidence | undefined;
      return {
        on: async () =>
          (attached = await applyEbpf(topo.router, {
            rewrite: REWRITE,
            pinRoot: topo.pinRoot,
            mode: 'tcx',
            ipIdGso,
            layout,
          })),
        off: () => detachEbpf(topo.router, { pinRoot: topo.pinRoot }),
        progIds: async () => attached!.interfaces.flatMap((i) => i.programs.map((p) => p.progId)),
      };
    };
    // An object's one TC program, loaded (verified) once and pinned, then attached by TCX on wan0
    // and detached again by one helper call each: the empty program, candidates (as compiled:
    // their .rodata defaults are the bench's REWRITE for wf_chain), and wf_chain as the loader
    // configures it. Switching such a mode takes milliseconds where the loader's apply takes a
    // few hundred, so the windows can alternate quickly (see windowsBench in throughput.ts).
    // Pinned beside the loader's pin root, not in it: the loader's detach removes whatever it
    // finds there, leftovers of a crashed run included.
    const preloadRoot = `${topo.pinRoot}-bench`;
    cleanups.push(() => runChecked(topo.router, [LOCAL_TCX_HELPER, 'rm', preloadRoot]));
    let preloaded = 0;
    const wanIfindex = String(
      (JSON.parse(await runChecked(topo.router, ['ip', '-j', 'link', 'show', 'wan0'])) as { ifindex: number }[])[0]!
        .ifindex,
    );
    const tcxObject = async (obj: string): Promise<Mode> => {
      const dir = `${preloadRoot}/object-${preloaded++}`;
      await runChecked(topo.router, [LOCAL_TCX_HELPER, 'mkdir', dir]);
      await runChecked(topo.router, ['bpftool', 'prog', 'load', obj, `${dir}/prog`, 'type', 'classifier']);
      const id = (
        JSON.parse(await runChecked(topo.router, ['bpftool', '-j', 'prog', 'show', 'pinned', `${dir}/prog`])) as {
          id: number;
        }
      ).id;
      return {
        on: async () =>
          void (await runChecked(topo.router, [LOCAL_TCX_HELPER, 'attach', wanIfindex, `${dir}/prog`, `${dir}/link`])),
        off: async () => void (await runChecked(topo.router, [LOCAL_TCX_HELPER, 'detach', `${dir}/link`])),
        progIds: async () => [id],
      };
    };
    // The control for the chain's windows and run time: an empty program, which pays the
    // dispatch (and the egress hook TCX switches on) and nothing else.
    const emptyProgram = await tcxObject(buildEmptyObject());
    const candidatesModes: Record<string, Mode> = {};
    for (const c of candidates) candidatesModes[c.name] = await tcxObject(c.path);
    const loaderChainFile = join(topo.work, 'wf_chain.configured.o');
    writeFileSync(loaderChainFile, configuredObject('bpfel', CHAIN_OBJECT, REWRITE, 'ethernet').bytes);
    const preloadedChain = await tcxObject(loaderChainFile);
    const nft = (ipIdGso: 'single-segment' | 'leave'): Mode => ({
      on: () => applyNft(topo.router, { rewrite: REWRITE, ipIdGso }),
      off: () => removeNft(topo.router),
    });
    const none: Mode = { on: async () => undefined, off: async () => undefined };
    const kinds: TrafficKind[] = [
      {
        kind: 'forwarded client -> router -> peer',
        from: topo.client,
        // the loader's default (gso_max_segs 1 on wan0): forwarded MTU-sized frames cross TC one
        // by one, so every packet on the wire has ID 0 and the setting costs them nothing
        modes: {
          none,
          'none, sender without TCP timestamps': tsOff(topo.client),
          'eBPF, merged wf_chain (TCX, default)': chain('single-segment'),
          'eBPF, four separate programs (TCX)': chain('single-segment', 'separate'),
          'nftables fallback (default)': nft('single-segment'),
          [PRELOADED_CHAIN_MODE]: preloadedChain,
        },
      },
      {
        kind: 'router-originated router -> peer',
        from: topo.router,
        modes: {
          none,
          'none, sender without TCP timestamps': tsOff(topo.router),
          // 'leave': the programs without the cost of giving up GSO for the router's own TCP
          'eBPF, merged wf_chain (TCX), ipIdGso leave': chain('leave'),
          'eBPF, four separate programs (TCX), ipIdGso leave': chain('leave', 'separate'),
          'nftables fallback, ipIdGso leave': nft('leave'),
          'eBPF, merged wf_chain (TCX, default: gso_max_segs 1)': chain('single-segment'),
        },
      },
    ];
    return await measure({ topo, kinds, emptyProgram, candidates: candidatesModes });
  } finally {
    for (const cleanup of cleanups) await cleanup();
    await topo.destroy();
  }
}
