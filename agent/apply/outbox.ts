/**
 * What the agent has to tell the controller, kept in the agent's state file (AgentState.outbox)
 * until the controller has it: an apply result until the controller's Ack for it, a drift
 * report or command result until it is written to a stream. Saving before sending means a
 * crash or restart never loses a result; an apply result written on a stream that broke before
 * its Ack is sent again on the next one (the controller records it once per result_id).
 */
import type { AgentBody } from '../controller-link.js';
import type { AgentState, OutboxEntry } from './state-store.js';
import { isWanReport } from './wan-watch.js';

const MAX_QUEUED_REPORTS = 20;
/** Outbox entries that only describe the router: past the latest few, older ones say nothing newer ones do not. */
const REPORT_KINDS: ((entry: OutboxEntry) => boolean)[] = [(e) => e.$case === 'driftReport', isWanReport];

export interface OutboxOptions {
  /** The agent state holding the outbox; undefined until it is loaded. */
  state: () => AgentState | undefined;
  /** Writes the whole agent state (the outbox is part of it). */
  save: () => Promise<void>;
  /** Sends on the live stream: the message's seq there, or 0 when there is none (the message is kept for later). */
  send: (body: AgentBody) => number;
  log: (message: string) => void;
}

export class Outbox {
  private flushing: Promise<void> = Promise.resolve();
  /** Apply results written on the current stream, by their seq there, until the controller's Ack. */
  private readonly awaitingAck = new Map<number, OutboxEntry>();

  constructor(private readonly options: OutboxOptions) {}

  /** Keeps the entry (saved with the state), then sends what can be sent. */
  async deliver(entry: OutboxEntry): Promise<void> {
    const st = this.options.state();
    if (!st) throw new Error('outbox: the agent state is not loaded');
    st.outbox.push(entry);
    // An agent offline for days must not grow its state file with drift or WAN-change reports: keep the latest few of each.
    for (const kind of REPORT_KINDS) {
      const reports = st.outbox.filter(kind);
      if (reports.length <= MAX_QUEUED_REPORTS) continue;
      const drop = new Set(reports.slice(0, reports.length - MAX_QUEUED_REPORTS));
      st.outbox = st.outbox.filter((e) => !drop.has(e));
    }
    await this.options.save();
    await this.flush();
  }

  /** Sends what the controller has not heard yet. Serialized with acks: an entry is sent once per stream. */
  flush(): Promise<void> {
    return this.serialize(() => this.flushOnce());
  }

  /**
   * A new stream reached Welcome. Apply results written on the previous one and never acked
   * may have been lost with it (written is not delivered): send them again. The controller
   * records a result once per result_id, so one that did arrive is not counted twice.
   */
  onSession(): Promise<void> {
    this.awaitingAck.clear();
    return this.flush();
  }

  /** The controller stored the message with this seq on the current stream. */
  onAck(seq: number): Promise<void> {
    return this.serialize(async () => {
      const entry = this.awaitingAck.get(seq);
      const st = this.options.state();
      if (!entry || !st) return;
      this.awaitingAck.delete(seq);
      st.outbox = st.outbox.filter((e) => e !== entry);
      await this.options.save();
    });
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    this.flushing = this.flushing
      .then(step)
      .catch((err: unknown) => this.options.log(`outbox: ${(err as Error).message}`));
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const st = this.options.state();
    if (!st || st.outbox.length === 0) return;
    const inFlight = new Set(this.awaitingAck.values());
    const kept: OutboxEntry[] = [];
    let blocked = false;
    for (const entry of st.outbox) {
      if (inFlight.has(entry)) {
        kept.push(entry);
        continue;
      }
      // In order: once one cannot be sent, the rest wait too.
      const seq = blocked ? 0 : this.options.send(toBody(entry));
      if (!seq) {
        blocked = true;
        kept.push(entry);
      } else if (entry.$case === 'applyResult') {
        // The one record of what an apply did: kept until acked. Drift reports and command
        // results are repeated or re-asked if lost; written is enough for them.
        this.awaitingAck.set(seq, entry);
        kept.push(entry);
      }
    }
    if (kept.length !== st.outbox.length) {
      st.outbox = kept;
      await this.options.save();
    }
  }
}

/** The stored entry as the message body to send: an apply result's times back to Dates. */
function toBody(entry: OutboxEntry): AgentBody {
  if (entry.$case === 'applyResult') {
    const v = entry.value as Record<string, unknown> & { startedAt: string; finishedAt: string };
    return {
      $case: 'applyResult',
      value: {
        ...(v as never as object),
        startedAt: new Date(v.startedAt),
        finishedAt: new Date(v.finishedAt),
      } as never,
    };
  }
  return { $case: entry.$case, value: entry.value as never } as AgentBody;
}
