/**
 * The controller's Commands on a simulated router (agent/sim/simulated-router.ts): the same
 * answers a real agent gives, from what the simulation holds. Diagnostics come from the
 * router's fixture tree (captured `logread`, `dmesg`, `nft list ruleset`) through the real
 * collector; the BPF section says what the applied plan would attach, since no kernel runs
 * here; a reboot drops the stream and comes back after a delay, as a real router's agent does.
 */
import {
  ApplyResult_Status,
  Command_Kind,
  type AppliedRevision,
  type Command,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { failed, refused, succeeded, type CommandOutcome } from '../commands/command-outcome.js';
import type { SectionSource } from '../commands/section-source.js';
import { FixtureHost } from './fixture-host.js';

/** How a simulated router answers a command (tests script failures with it). */
export type SimulatedCommandOutcome = 'ok' | 'fail' | 'silent';

/** What the applied plan of a simulated router would put in its kernel. */
export interface SimulatedDatapath {
  mode: string;
  attach: string | null;
  programs: string[];
  offload: string;
}

/** The simulated router as its commands see and change it. */
export interface SimulatedCommandTarget {
  readonly root: string;
  applied: AppliedRevision | undefined;
  previous: AppliedRevision | undefined;
  readonly datapath: SimulatedDatapath | undefined;
  /** Reports an apply result the way an apply does (kept while disconnected). */
  reportApply(status: ApplyResult_Status, revision: AppliedRevision, error: string): void;
  reportDrift(revision: AppliedRevision | undefined): void;
  rollBackUnconfirmed(reason: string): void;
  /** ROLLBACK of a confirmed revision; false when there is nothing to go back to. */
  rollBackConfirmed(reason: string): boolean;
}

const named = (a: AppliedRevision | undefined) => (a ? `${a.profile}@${a.revision}` : 'nothing of wrtfleet');

function simulatedBpfStatus(target: SimulatedCommandTarget): SectionSource {
  const d = target.datapath;
  const lines = [
    'simulated router: no kernel runs here; this is what the applied plan puts on the router',
    `applied: ${named(target.applied)}${target.applied?.pendingConfirm ? ' (not yet confirmed)' : ''}`,
    `datapath: ${d ? `${d.mode}${d.attach ? ` via ${d.attach}` : ''}` : 'none'}`,
    `programs: ${d?.programs.join(', ') || 'none'}`,
    `offload: ${d?.offload ?? 'off'}`,
  ];
  return { command: 'simulated: the applied plan', text: `${lines.join('\n')}\n`, error: '' };
}

export async function runSimulatedCommand(command: Command, target: SimulatedCommandTarget): Promise<CommandOutcome> {
  switch (command.kind) {
    case Command_Kind.KIND_REPROBE:
      return succeeded('simulated router: its capabilities are predicted from the fixture facts; nothing to probe');
    case Command_Kind.KIND_REAPPLY:
      if (!target.applied) return refused('nothing applied: no revision to re-apply');
      target.reportApply(ApplyResult_Status.STATUS_APPLIED, target.applied, '');
      return succeeded(`re-applied ${named(target.applied)}: applied (simulated)`);
    case Command_Kind.KIND_ROLLBACK: {
      const from = target.applied;
      if (from?.pendingConfirm) {
        target.rollBackUnconfirmed('rollback requested by the controller');
        return succeeded(`rolled back ${named(from)} (not yet confirmed); the router runs ${named(target.applied)}`);
      }
      if (!target.rollBackConfirmed('rollback requested by the controller')) return refused('nothing to roll back');
      return succeeded(`rolled back ${named(from)}; the router runs ${named(target.applied)}`);
    }
    case Command_Kind.KIND_DETACH: {
      const before = target.applied;
      target.applied = undefined;
      target.previous = undefined;
      return succeeded(
        `detached every program and table of wrtfleet (${before ? `was running ${named(before)}` : 'nothing was applied'}); nothing is applied now`,
      );
    }
    case Command_Kind.KIND_CHECK_DRIFT:
      target.reportDrift(target.applied);
      return succeeded(
        target.applied
          ? `no drift from ${named(target.applied)}`
          : 'nothing applied, and nothing of wrtfleet on the router',
      );
    case Command_Kind.KIND_REBOOT:
      return succeeded('simulated reboot: the agent goes away and comes back');
    case Command_Kind.KIND_DIAGNOSTICS: {
      const { collectDiagnostics, diagnosticsSummary } = await import('../commands/diagnostics.js');
      const sections = await collectDiagnostics(new FixtureHost(target.root), {
        bpfStatus: async () => simulatedBpfStatus(target),
      });
      return succeeded(diagnosticsSummary(sections), sections);
    }
    default:
      return failed(`unknown command kind ${command.kind}: this agent does not know it`);
  }
}
