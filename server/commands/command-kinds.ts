/**
 * The commands an operator can send, one spelling each: snake_case in the API and the
 * database, kebab-case as CLI verbs (`re-probe`), Command.Kind on the wire.
 */
import { Command_Kind } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Scope } from '../auth/api-tokens.js';

export const COMMAND_KINDS = [
  're_probe',
  're_apply',
  'rollback',
  'detach',
  'check_drift',
  'reboot',
  'diagnostics',
] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];

export const PROTO_KIND: Record<CommandKind, Command_Kind> = {
  re_probe: Command_Kind.KIND_REPROBE,
  re_apply: Command_Kind.KIND_REAPPLY,
  rollback: Command_Kind.KIND_ROLLBACK,
  detach: Command_Kind.KIND_DETACH,
  check_drift: Command_Kind.KIND_CHECK_DRIFT,
  reboot: Command_Kind.KIND_REBOOT,
  diagnostics: Command_Kind.KIND_DIAGNOSTICS,
};

/**
 * The scope a kind needs. Reboot takes a router's traffic down and detach removes what it
 * runs, as decommissioning does: admin. The others read or put back what the router should
 * run: write.
 */
export function scopeFor(kind: CommandKind): Scope {
  return kind === 'reboot' || kind === 'detach' ? 'admin' : 'write';
}

export const TARGET_STATES = [
  'queued',
  'sent',
  'succeeded',
  'failed',
  'offline',
  'timed_out',
  'cancelled',
  'refused',
] as const;
export type CommandTargetState = (typeof TARGET_STATES)[number];

/** Targets that may still get or answer the command while the job runs. */
export const OPEN_STATES: CommandTargetState[] = ['queued', 'sent'];
/** Outcomes: nothing changes them any more. Offline is one only once the job has ended. */
export const OUTCOME_STATES: CommandTargetState[] = ['succeeded', 'failed', 'timed_out', 'cancelled', 'refused'];

export const JOB_STATES = ['running', 'completed', 'cancelled'] as const;
export type CommandJobState = (typeof JOB_STATES)[number];
