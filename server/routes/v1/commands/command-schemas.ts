import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import { grants } from '../../../auth/api-tokens.js';
import {
  COMMAND_KINDS,
  JOB_STATES,
  OLD_KIND_SPELLINGS,
  scopeFor,
  TARGET_STATES,
  type CommandKind,
} from '../../../commands/command-kinds.js';
import {
  COMMAND_DEFAULTS,
  CommandConflict,
  CommandNotFound,
  CommandRefused,
} from '../../../commands/command-service.js';
import { commandView, type CommandView } from '../../../commands/command-view.js';
import { selectorError } from '../selector-error.js';
import { ApiError } from '../../../http/api-error.js';
import { Nullable, StringEnum, StringEnumWithOld, Timestamp } from '../../../http/shared-schemas.js';

/** What `/v1/commands` and `/v1/routers/:id/commands` share: the command's schemas and the checks before a command is sent. */

const KIND_HELP = 'reboot and detach need the admin scope; the others write';
export const Kind = StringEnum(COMMAND_KINDS, { title: 'CommandKind', description: KIND_HELP });
/** What a request may send: today's kinds and, until 0.3, their old spellings. */
export const KindInput = StringEnumWithOld(COMMAND_KINDS, OLD_KIND_SPELLINGS, { description: KIND_HELP });
export const JobState = StringEnum(JOB_STATES, { title: 'CommandState' });
export const TargetState = StringEnum(TARGET_STATES, { title: 'CommandTargetState' });
const Counts = Type.Object(Object.fromEntries(TARGET_STATES.map((s) => [s, Type.Integer()])));

export const CommandSchema = Type.Object({
  id: Type.String(),
  kind: Kind,
  selector: Type.Any({ description: 'The selector as given; { ids: [id] } for a command on one router' }),
  state: JobState,
  timeoutSeconds: Type.Integer(),
  maxInFlight: Type.Integer(),
  deadline: Timestamp,
  total: Type.Integer(),
  finished: Type.Integer({ description: 'Routers with an outcome (offline ones count once the command has ended)' }),
  counts: Counts,
  createdBy: Type.String(),
  createdAt: Timestamp,
  finishedAt: Nullable(Timestamp),
  cancelledBy: Nullable(Type.String()),
});

const SectionSchema = Type.Object({
  name: Type.String(),
  command: Type.String(),
  text: Type.String(),
  truncated: Type.Boolean(),
  error: Type.String(),
});

export const TargetSchema = Type.Object({
  routerId: Type.String(),
  name: Type.String(),
  state: TargetState,
  reason: Nullable(Type.String({ description: 'Why it was refused, failed, timed out, is offline or was cancelled' })),
  output: Nullable(Type.String({ description: "The agent's account of what it did, at most 64 KiB" })),
  sections: Type.Optional(
    Nullable(
      Type.Array(SectionSchema, { description: 'The diagnostic bundle (with ?sections=true), at most 256 KiB' }),
    ),
  ),
  sentAt: Nullable(Timestamp),
  finishedAt: Nullable(Timestamp),
  updatedAt: Timestamp,
});

export const jobOptions = {
  timeoutSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 3600,
      default: COMMAND_DEFAULTS.timeoutSeconds,
      description: 'A router with the command that has not answered after this long is timed_out',
    }),
  ),
  deadlineSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 7 * 86_400,
      default: COMMAND_DEFAULTS.deadlineSeconds,
      description: 'An offline router that connects within this many seconds still gets the command',
    }),
  ),
};

/** The scope check, the command read back as the API shows it, and the domain's refusals as API errors. */
export function commandRouteHelpers(db: PrismaClient) {
  /** The write scope gets a route in; reboot and detach need admin on top. */
  const mayRun = (request: FastifyRequest, kind: CommandKind) => {
    const needed = scopeFor(kind);
    if (!grants(request.actor.scopes, needed))
      throw new ApiError(
        403,
        'forbidden',
        `a ${kind} command needs the "${needed}" scope; the token has ${request.actor.scopes.join(', ') || 'none'}`,
      );
  };
  const mustView = async (id: string): Promise<CommandView> => {
    const view = await commandView(db, id);
    if (!view) throw new ApiError(404, 'not_found', `no command ${id}`);
    return view;
  };
  const refusal = (err: unknown) => {
    const unreadable = selectorError(err);
    if (unreadable) return unreadable;
    if (err instanceof CommandRefused)
      return new ApiError(400, 'command_refused', err.message, [
        { path: '/selector', in: 'body', message: err.message },
      ]);
    if (err instanceof CommandConflict) return new ApiError(409, 'conflict', err.message);
    if (err instanceof CommandNotFound) return new ApiError(404, 'not_found', err.message);
    return err;
  };

  return { mayRun, mustView, refusal };
}
