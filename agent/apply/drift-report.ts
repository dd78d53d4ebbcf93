/**
 * The live router compared with the applied plan: what a drift check reports (the checks'
 * schedule is agent/drift/index.ts, the re-apply decision the ApplyManager's).
 */
import type { DriftReport } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { readLive, type DatapathPaths } from './live.js';
import { comparePlanToLive, requiresHardware, type AppliedRecord, type Difference } from './transaction.js';

/** Empty differences: no drift. With nothing applied, anything of ours on the router is a difference. */
export async function driftReport(
  host: RouterHost,
  paths: DatapathPaths,
  applied: AppliedRecord | null,
): Promise<DriftReport> {
  const live = await readLive(host, paths);
  if (!applied) {
    const differences: Difference[] = [];
    for (const i of live.ebpf.interfaces)
      differences.push({
        path: `datapath/${i.ifname}`,
        expected: 'nothing attached (no revision applied)',
        actual: i.programs.map((p) => p.program).join(', '),
      });
    if (live.nft.present)
      differences.push({ path: 'nftables/table', expected: 'absent (no revision applied)', actual: 'present' });
    return { profile: '', revision: 0, differences };
  }
  return {
    profile: applied.profile,
    revision: applied.revision,
    differences: comparePlanToLive(applied.plan, live, { requireHardware: requiresHardware(applied.spec) }),
  };
}
