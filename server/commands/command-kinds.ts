/**
 * The commands an operator can send, one spelling each (`reprobe`) in the API, the database,
 * the CLI and the agent; Command.Kind (KIND_REPROBE) on the wire.
 */
import { Command_Kind } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import {
  CommandState,
  CommandKind as PrismaCommandKind,
  CommandTargetState as PrismaCommandTargetState,
} from '../../prisma/generated/client/enums.js';
import type { Scope } from '../auth/api-tokens.js';
import { prismaEnumValues } from '../storage/prisma-enums.js';

export const COMMAND_KINDS = prismaEnumValues(PrismaCommandKind);
export type CommandKind = (typeof COMMAND_KINDS)[number];

/** Spellings of 0.1 the API still accepts (marked deprecated in OpenAPI); removed in 0.3. */
export const OLD_KIND_SPELLINGS = { re_probe: 'reprobe', re_apply: 'reapply' } as const satisfies Record<
  string,
  CommandKind
>;
export type OldKindSpelling = keyof typeof OLD_KIND_SPELLINGS;

export function canonicalKind(kind: CommandKind | OldKindSpelling): CommandKind {
  return kind in OLD_KIND_SPELLINGS ? OLD_KIND_SPELLINGS[kind as OldKindSpelling] : (kind as CommandKind);
}

export const PROTO_KIND: Record<CommandKind, Command_Kind> = {
  reprobe: Command_Kind.KIND_REPROBE,
  reapply: Command_Kind.KIND_REAPPLY,
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

export const TARGET_STATES = prismaEnumValues(PrismaCommandTargetState);
export type CommandTargetState = (typeof TARGET_STATES)[number];

/** Targets that may still get or answer the command while the command runs. */
export const OPEN_STATES: CommandTargetState[] = ['queued', 'sent'];
/** Outcomes: nothing changes them any more. Offline is one only once the command has ended. */
export const OUTCOME_STATES: CommandTargetState[] = ['succeeded', 'failed', 'timed_out', 'cancelled', 'refused'];

export const JOB_STATES = prismaEnumValues(CommandState);
export type { CommandState };
