import type { Logger } from 'pino';
import { isDatabaseUnavailable, retryWhileDatabaseAway } from '../storage/database-unavailable.js';

/**
 * Messages whose next one supersedes them: while the database is away they are dropped, not
 * retried (the next heartbeat or sample says the same, newer).
 */
const LOSSY_MESSAGES = new Set(['heartbeat', 'telemetry']);

export interface AgentMessageStorage {
  /** True once the stream the message came on is closed: retrying for it is pointless. */
  streamClosed: () => boolean;
  /** How long a message that must be stored is retried (AgentGatewayOptions.storeRetryMs). */
  giveUpAfterMs: number | undefined;
  log: Logger;
}

/**
 * Stores what a message of an established stream carries; while the database cannot be
 * reached, a lossy message is dropped and one that must be stored is retried with backoff
 * (the stream's later messages wait behind it, keeping their order) until `giveUpAfterMs`
 * has passed. A Hello is not retried: without a session the agent comes back later.
 */
export async function storeAgentMessage(
  kind: string,
  write: () => Promise<void>,
  { streamClosed, giveUpAfterMs, log }: AgentMessageStorage,
): Promise<void> {
  if (LOSSY_MESSAGES.has(kind)) {
    try {
      return await write();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || streamClosed()) throw err;
      return;
    }
  }
  return retryWhileDatabaseAway(write, {
    giveUpAfterMs,
    keepTrying: () => !streamClosed(),
    onWait: () => log.warn({ kind }, 'database unavailable; holding an agent message until it returns'),
  });
}
