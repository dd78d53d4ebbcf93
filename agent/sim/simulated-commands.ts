/**
 * The controller's Commands on a simulated router (agent/sim/simulated-router.ts). The ones
 * about what is applied (REAPPLY, ROLLBACK, DETACH, CHECK_DRIFT) and DIAGNOSTICS run the
 * agent's own runCommand (agent/apply/command-runner.ts) through its ApplyManager, over the
 * simulated datapath and the fixture tree's captures (`logread`, `dmesg`, `nft list ruleset`).
 * The two that are about the host itself are answered here: there is nothing to probe (the
 * capabilities are predicted from the fixture facts), and a reboot drops the stream and comes
 * back after a delay, as a real router's agent does. Tests script failures per command.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Command_Kind, type Command } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { failed, succeeded } from '../commands/command-outcome.js';
import { runCommand, type CommandRun, type CommandRunnerDeps } from '../apply/command-runner.js';

/** How a simulated router answers a command (tests script failures with it). */
export type SimulatedCommandOutcome = 'ok' | 'fail' | 'silent';

export interface SimulatedCommandHost {
  /** Simulated time a command takes on the router. */
  delayMs?: number;
  /** The scripted outcome of a command this router received ('silent' ones never get here). */
  scripted: (command: Command) => SimulatedCommandOutcome;
  /** Goes away as a rebooting router does, and comes back. */
  reboot: () => void;
}

/** runCommand for the ApplyManager of a simulated router. */
export function simulatedCommandRunner(host: SimulatedCommandHost) {
  return async (command: Command, deps: CommandRunnerDeps): Promise<CommandRun> => {
    if (host.delayMs) await sleep(host.delayMs);
    if (host.scripted(command) === 'fail')
      return { outcome: failed(`simulated failure of ${Command_Kind[command.kind]}`) };
    switch (command.kind) {
      case Command_Kind.KIND_REPROBE:
        return {
          outcome: succeeded(
            'simulated router: its capabilities are predicted from the fixture facts; nothing to probe',
          ),
        };
      case Command_Kind.KIND_REBOOT:
        return {
          outcome: succeeded('simulated reboot: the agent goes away and comes back'),
          after: async () => host.reboot(),
        };
      default:
        return runCommand(command, deps);
    }
  };
}
