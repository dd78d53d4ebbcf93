import { Fact, Panel } from './Panel.js';
import { liveDatapath, liveOffload } from './live-state.js';
import type { RouterDetail } from './router-types.js';

interface FactSheet {
  cpu?: { model?: string | null; cores?: number | null };
  openwrt?: { release?: string; target?: string | null; revision?: string | null } | null;
  model?: { id?: string | null; name?: string | null };
  boardName?: string | null;
  network?: { wan?: string[]; lan?: string[] };
  unknown?: { field?: string; reason?: string }[] | string[];
}

const PLACEMENT: Record<string, string> = {
  on_router: 'agent on the router',
  proxy: 'proxy agent over SSH',
  unknown: 'unknown',
};

/** What the router is (the agent's fact sheet) and what it runs now (its live state). */
export function FactsPanel({ router }: { router: RouterDetail }) {
  const facts = (router.facts ?? {}) as FactSheet;
  const wan = facts.network?.wan ?? [];
  const datapath = liveDatapath(router.liveState);
  const offload = liveOffload(router.liveState);
  return (
    <>
      <Panel title="Facts">
        <dl className="wf-facts">
          <Fact term="SoC">{router.soc}</Fact>
          <Fact term="CPU">
            {facts.cpu?.model
              ? `${facts.cpu.model}${facts.cpu.cores ? ` · ${facts.cpu.cores} ${facts.cpu.cores === 1 ? 'core' : 'cores'}` : ''}`
              : router.arch}
          </Fact>
          <Fact term="Architecture">
            {router.arch ? `${router.arch}${router.endian ? ` (${router.endian})` : ''}` : null}
          </Fact>
          <Fact term="Kernel">{router.kernel}</Fact>
          <Fact term="OpenWrt release">
            {router.openwrt
              ? `${router.openwrt.release}${router.openwrt.target ? ` · ${router.openwrt.target}` : ''}${facts.openwrt?.revision ? ` · ${facts.openwrt.revision}` : ''}`
              : null}
          </Fact>
          <Fact term="Model">{router.model ?? facts.model?.name}</Fact>
          <Fact term="Board">{facts.boardName}</Fact>
          <Fact term="Placement">{PLACEMENT[router.placement] ?? router.placement}</Fact>
          <Fact term="WAN interfaces">{wan.length ? wan.join(', ') : null}</Fact>
          <Fact term="Agent">{router.agentVersion}</Fact>
          <Fact term="Identity">
            <code className="wf-break">{router.identity}</code>
          </Fact>
          <Fact term="Tags">
            {router.tags.length ? router.tags.join(', ') : <span className="wf-muted">none</span>}
          </Fact>
        </dl>
      </Panel>
      <Panel title="Offload and datapath now">
        <dl className="wf-facts">
          <Fact term="Offload">{offload ? offload.mode : null}</Fact>
          {offload?.reason ? <Fact term="Why">{offload.reason}</Fact> : null}
          <Fact term="Datapath">{datapath ? datapath.mode : null}</Fact>
          <Fact term="On">{datapath?.interfaces.length ? datapath.interfaces.join(', ') : null}</Fact>
          <Fact term="Programs">{datapath?.programs.length ? datapath.programs.join(', ') : null}</Fact>
        </dl>
      </Panel>
    </>
  );
}
