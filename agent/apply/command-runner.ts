/**
 * The controller's Commands on a real router (on the router itself or through a proxy), run
 * in the ApplyManager's queue: each answers with what it did (CommandOutcome.output), and a
 * command the router's state does not allow is refused with the reason, touching nothing.
 */
import {
  ApplyResult_Status,
  Command_Kind,
  type Command,
  type DriftReport,
} from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { failed, refused, succeeded, type CommandOutcome } from '../commands/command-outcome.js';
import type { ProbedCapabilities } from '../probe/index.js';
import type { ApplyContext } from './apply-context.js';
import type { ApplyResultValue } from './apply-result.js';
import type { ConfirmWindow } from './confirm-window.js';
import type { AppliedRecord } from './transaction.js';

/** How long the agent waits after answering a reboot before it reboots: the answer leaves first. */
export const REBOOT_DELAY_MS = 1_000;

export interface CommandRunnerDeps {
  ctx: ApplyContext;
  confirmWindow: ConfirmWindow;
  /** Re-applies the applied revision (forced), returning its ApplyResult. */
  reapply: () => Promise<ApplyResultValue>;
  driftCheck: () => Promise<DriftReport>;
  /** Sends a drift report the way the timer's are sent. */
  reportDrift: (report: DriftReport) => Promise<void>;
  /** Re-runs the capability probe; absent where the host cannot run anything (a fixture tree). */
  reprobe?: () => Promise<ProbedCapabilities | undefined>;
}

/** A command's outcome, and for a reboot what to run once the outcome is on its way. */
export interface CommandRun {
  outcome: CommandOutcome;
  after?: () => Promise<void>;
}

const named = (a: Pick<AppliedRecord, 'profile' | 'revision'> | null | undefined) =>
  a ? `${a.profile}@${a.revision}` : 'nothing of wrtfleet';

const yesNo = (v: boolean | undefined) => (v === undefined ? 'not probed' : v ? 'yes' : 'no');

export async function runCommand(command: Command, deps: CommandRunnerDeps): Promise<CommandRun> {
  const { ctx } = deps;
  const st = ctx.state();
  switch (command.kind) {
    case Command_Kind.KIND_REPROBE: {
      if (!deps.reprobe) return { outcome: refused('this agent has no capability probe') };
      const probed = await deps.reprobe();
      if (!probed) return { outcome: failed('the probe returned nothing') };
      const flags = (['ebpf', 'tcx', 'softwareOffload', 'hardwareOffload'] as const).map(
        (f) => `${f}: ${yesNo(probed.flags[f])}${probed.reasons[f] ? ` (${probed.reasons[f]})` : ''}`,
      );
      return { outcome: succeeded(`probed in ${probed.durationMs} ms\n${flags.join('\n')}`) };
    }
    case Command_Kind.KIND_REAPPLY: {
      if (!st.applied) return { outcome: refused('nothing applied: no revision to re-apply') };
      const what = named(st.applied);
      const result = await deps.reapply();
      const status = ApplyResult_Status[result.status].replace('STATUS_', '').toLowerCase();
      const output = `re-applied ${what}: ${status}${result.planHash ? ` (plan ${result.planHash.slice(0, 12)})` : ''}`;
      return {
        outcome:
          result.status === ApplyResult_Status.STATUS_APPLIED
            ? succeeded(output)
            : failed(result.error || status, `${output}\n${result.error}`),
      };
    }
    case Command_Kind.KIND_ROLLBACK: {
      const pending = st.pending;
      if (pending) {
        await deps.confirmWindow.rollbackPending('rollback requested by the controller');
        return {
          outcome: succeeded(
            `rolled back ${pending.profile}@${pending.revision} (not yet confirmed); the router runs ${named(ctx.state().applied)}`,
          ),
        };
      }
      const from = named(st.applied);
      const error = await deps.confirmWindow.rollbackConfirmed();
      if (error === 'nothing to roll back') return { outcome: refused(error) };
      if (error) return { outcome: failed(error, `rolled back ${from}, but ${error}`) };
      return { outcome: succeeded(`rolled back ${from}; the router runs ${named(ctx.state().applied)}`) };
    }
    case Command_Kind.KIND_DETACH: {
      const before = st.applied;
      deps.confirmWindow.clear();
      await ctx.datapath.detachAll();
      st.applied = null;
      st.pending = null;
      st.rollback = null;
      await ctx.save();
      return {
        outcome: succeeded(
          `detached every program and table of wrtfleet (${before ? `was running ${named(before)}` : 'nothing was applied'}); nothing is applied now`,
        ),
      };
    }
    case Command_Kind.KIND_CHECK_DRIFT: {
      const report = await deps.driftCheck();
      await deps.reportDrift(report);
      const of = report.profile ? `${report.profile}@${report.revision}` : 'nothing applied';
      if (report.differences.length === 0)
        return {
          outcome: succeeded(
            report.profile ? `no drift from ${of}` : 'nothing applied, and nothing of wrtfleet on the router',
          ),
        };
      return {
        outcome: succeeded(
          [
            `${report.differences.length} difference${report.differences.length === 1 ? '' : 's'} from ${of}:`,
            ...report.differences.map((d) => `  ${d.path}: expected ${d.expected}, found ${d.actual}`),
          ].join('\n'),
        ),
      };
    }
    case Command_Kind.KIND_REBOOT:
      return {
        outcome: succeeded(`rebooting ${ctx.host.description} in ${REBOOT_DELAY_MS / 1000} s`),
        after: async () => {
          const r = await ctx.host.run(['reboot']);
          if (r.code !== 0) ctx.log(`reboot: exit ${r.code ?? 'none'}: ${r.stderr.trim()}`);
        },
      };
    case Command_Kind.KIND_DIAGNOSTICS: {
      const { collectDiagnostics, diagnosticsSummary } = await import('../commands/diagnostics.js');
      const sections = await collectDiagnostics(ctx.host, { bpfStatus: () => ctx.datapath.bpfStatus() });
      return { outcome: succeeded(diagnosticsSummary(sections), sections) };
    }
    default:
      return { outcome: failed(`unknown command kind ${command.kind}: this agent does not know it`) };
  }
}
