/**
 * The controller's messages an agent hands to its ApplyManager: the one dispatch the shipped
 * agent (agent/router-agent.ts) and every simulated router (agent/sim/simulated-router.ts)
 * share, so both answer DesiredState, ConfirmApply, Command and Ack alike.
 */
import type { ControllerMessage } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { ApplyManager } from './manager.js';

export async function deliverToManager(manager: ApplyManager, message: ControllerMessage): Promise<void> {
  const body = message.body;
  switch (body?.$case) {
    case 'desiredState':
      return manager.onDesiredState(body.value);
    case 'confirmApply':
      return manager.onConfirm(body.value);
    case 'command':
      return manager.onCommand(message.seq, body.value);
    case 'ack':
      return manager.onAck(body.value.agentSeq);
    default:
      return;
  }
}
