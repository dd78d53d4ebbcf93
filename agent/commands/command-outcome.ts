/**
 * What a command did, as every agent (on the router, a proxy, a simulated router) reports it:
 * a CommandResult within the contract's bounds, echoing the command's id so any controller
 * replica can record it.
 */
import type { Command, CommandResult } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { boundChars, boundText, COMMAND_ERROR_MAX_CHARS, COMMAND_OUTPUT_MAX_BYTES } from '../../core/bounded-text.js';
import { boundBundle, type DiagnosticSectionText } from '../../core/diagnostic-bundle.js';

export interface CommandOutcome {
  ok: boolean;
  /** What happened, for the operator (also when it failed). */
  output: string;
  /** Why it failed or was refused ('' when ok). */
  error: string;
  /** The router's state does not allow it; nothing was changed. */
  refused: boolean;
  sections: DiagnosticSectionText[];
}

export const succeeded = (output: string, sections: DiagnosticSectionText[] = []): CommandOutcome => ({
  ok: true,
  output,
  error: '',
  refused: false,
  sections,
});

export const failed = (error: string, output = ''): CommandOutcome => ({
  ok: false,
  output: output || `failed: ${error}`,
  error,
  refused: false,
  sections: [],
});

/** Nothing was touched: the router's state does not allow the command. */
export const refused = (error: string, output = ''): CommandOutcome => ({
  ok: false,
  output: output || `refused: ${error}`,
  error,
  refused: true,
  sections: [],
});

/** The CommandResult answering `command` (sent as ControllerMessage `seq`). */
export function commandResultValue(seq: number, command: Command, outcome: CommandOutcome): CommandResult {
  return {
    commandSeq: seq,
    commandId: command.commandId ?? '',
    ok: outcome.ok,
    error: boundChars(outcome.error, COMMAND_ERROR_MAX_CHARS),
    output: boundText(outcome.output, COMMAND_OUTPUT_MAX_BYTES).text,
    refused: outcome.refused,
    sections: boundBundle(outcome.sections),
  };
}
