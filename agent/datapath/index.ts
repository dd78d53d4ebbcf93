/**
 * Datapath entry point for the agent: eBPF chain first (TCX, then cls_bpf), nftables when
 * eBPF cannot be used. Returns structured evidence of what runs.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import { applyEbpf, detachEbpf, type DatapathEvidence, type DatapathOptions } from './loader.js';
import { applyNft, removeNft, type NftEvidence } from './nft.js';

export * from './programs.js';
export * from './loader.js';
export {
  attachUnits,
  expectedFingerprints,
  type AttachedInterface,
  type AttachedProgram,
  type ProgramLayout,
} from './attach-interface.js';
export { CLS_PRIO } from './cls-bpf.js';
export { DEFAULT_PIN_ROOT } from './pinned-state.js';
export { eligibleInterfaces, type Eligibility, type WanSelection } from './wan-eligibility.js';
export { probeTcx } from './wf-tcx.js';
export * from './nft.js';
export * from './counters.js';
export { NetnsHost } from './netns-host.js';

export type RewriteEvidence = (DatapathEvidence | NftEvidence) & { ebpfError?: string };

/**
 * Installs the rewrites. `fallback: false` turns a failed eBPF attach into an error instead
 * of silently degrading (the caller decides; the evidence always says which path runs).
 */
export async function ensureRewrite(
  host: RouterHost,
  opts: DatapathOptions & { fallback?: boolean },
): Promise<RewriteEvidence> {
  try {
    const ev = await applyEbpf(host, opts);
    await removeNft(host); // an earlier fallback must not double-apply
    return ev;
  } catch (e) {
    if (opts.fallback === false) throw e;
    const msg = (e as Error).message;
    // Leave no half-attached chain behind before switching paths.
    await detachEbpf(host, opts).catch(() => undefined);
    return { ...(await applyNft(host, opts)), ebpfError: msg };
  }
}

export async function removeRewrite(host: RouterHost, opts: Partial<DatapathOptions> = {}): Promise<void> {
  await detachEbpf(host, opts).catch(() => undefined);
  await removeNft(host);
}
