/**
 * The replica-local half of a command: the replica holding a router's stream sends it the
 * command (told over the fleet bus by whichever replica dispatched it), and the replica that
 * receives the agent's answer records it, found by the command id the agent echoes, not by
 * the stream it arrived on: a result kept while the stream was down arrives on the next one,
 * possibly on another replica.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { CommandResult } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { AgentGateway } from '../agent-gateway/agent-gateway.js';
import { boundChars, boundText, COMMAND_ERROR_MAX_CHARS, COMMAND_OUTPUT_MAX_BYTES } from '../../core/bounded-text.js';
import { boundBundle } from '../../core/diagnostic-bundle.js';
import type { CommandDeliveryMessage } from '../cluster/fleet-bus.js';
import { PROTO_KIND, type CommandKind } from './command-kinds.js';
import type { CommandDispatcher } from './command-dispatch.js';

/** The longest command id the contract allows (Command.command_id). */
const COMMAND_ID_MAX = 64;

/** PostgreSQL text and jsonb hold no NUL character: a router's log may. */
const storable = (text: string) => text.replaceAll('\u0000', '');

export class CommandDelivery {
  constructor(
    private readonly db: PrismaClient,
    private readonly gateway: AgentGateway,
    private readonly dispatcher: CommandDispatcher,
    private readonly log: Logger,
  ) {}

  /** Sends the command's command to those of the routers whose stream is on this replica. */
  async deliver({ commandId, routerIds }: CommandDeliveryMessage): Promise<void> {
    const here = routerIds.filter((id) => this.gateway.sessions.has(id));
    if (here.length === 0) return;
    const job = await this.db.command.findUnique({ where: { id: commandId }, select: { kind: true } });
    if (!job) return;
    const kind = PROTO_KIND[job.kind as CommandKind];
    for (const routerId of here)
      this.gateway.sessions.get(routerId)?.send({ $case: 'command', value: { kind, commandId: commandId } });
    this.log.debug({ commandId, routers: here.length }, 'command sent');
  }

  /**
   * Stores an agent's answer on its target, within the contract's bounds whatever the agent
   * sent, if the target still waits for one (a late answer after a timeout is not counted).
   */
  async recordResult(routerId: string, result: CommandResult): Promise<void> {
    const commandId = result.commandId;
    if (!commandId || commandId.length > COMMAND_ID_MAX) return;
    const state = result.ok ? 'succeeded' : result.refused ? 'refused' : 'failed';
    const sections = boundBundle(
      (result.sections ?? []).map((x) => ({
        ...x,
        name: storable(x.name),
        command: storable(x.command),
        text: storable(x.text),
        error: storable(x.error),
      })),
    );
    const { count } = await this.db.commandTarget.updateMany({
      where: { commandId, routerId, state: 'sent' },
      data: {
        state,
        reason: result.ok
          ? null
          : boundChars(
              storable(result.error) || `the agent reported ${state} without a reason`,
              COMMAND_ERROR_MAX_CHARS,
            ),
        output: boundText(storable(result.output ?? ''), COMMAND_OUTPUT_MAX_BYTES).text,
        ...(sections.length ? { sections: sections as object[] } : {}),
        finishedAt: new Date(),
      },
    });
    if (count > 0) await this.dispatcher.kick(commandId);
  }
}
