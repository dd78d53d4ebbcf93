import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import { grants } from '../../../auth/api-tokens.js';
import {
  COMMAND_KINDS,
  JOB_STATES,
  scopeFor,
  TARGET_STATES,
  type CommandKind,
} from '../../../commands/command-kinds.js';
import { COMMAND_DEFAULTS, CommandConflict, CommandNotFound, CommandRefused } from '../../../commands/command-jobs.js';
import { commandJobView, type CommandJobView } from '../../../commands/command-view.js';
import { selectorError } from '../selector-error.js';
import { ApiError } from '../../../http/api-error.js';
import { Nullable, StringEnum, Timestamp } from '../../../http/shared-schemas.js';

/** What `/v1/commands` and `/v1/routers/:id/commands` share: the job's schemas and the checks before a command is sent. */

export const Kind = StringEnum(COMMAND_KINDS, {
  description: 'reboot and detach need the admin scope; the others write',
});
export const JobState = StringEnum(JOB_STATES);
export const TargetState = StringEnum(TARGET_STATES);
const Counts = Type.Object(Object.fromEntries(TARGET_STATES.map((s) => [s, Type.Integer()])));

export const CommandJobSchema = Type.Object({
  id: Type.String(),
  kind: Kind,
  selector: Type.Any({ description: 'The selector as given; { ids: [id] } for a command on one router' }),
  state: JobState,
  timeoutSeconds: Type.Integer(),
  maxInFlight: Type.Integer(),
  deadline: Timestamp,
  total: Type.Integer(),
  finished: Type.Integer({ description: 'Routers with an outcome (offline ones count once the job has ended)' }),
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

/** The scope check, the job read back as the API shows it, and the domain's refusals as API errors. */
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
  const mustView = async (id: string): Promise<CommandJobView> => {
    const view = await commandJobView(db, id);
    if (!view) throw new ApiError(404, 'not_found', `no command job ${id}`);
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
