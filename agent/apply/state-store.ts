/**
 * The agent's own memory of one router: what is applied, whether a commit-confirmed window
 * is open (with the snapshot to roll back to), and results the controller has not heard yet.
 *
 * It lives on the agent side (on the router for the on-router placement, on the proxy host
 * for the proxy), in a small JSON file written atomically (temp file + rename), so an agent
 * restart during a confirm window still rolls back, and a ROLLED_BACK result survives until
 * the controller has it. This is agent-local state, not router state, so it is plain fs and
 * not a RouterHost call.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AppliedRecord, Snapshot } from './transaction.js';

export interface PendingConfirm {
  profile: string;
  revision: number;
  planHash: string;
  /** Epoch ms after which the agent rolls back by itself. */
  deadline: number;
  windowSeconds: number;
  /** Restore target: the state before the first unconfirmed apply. */
  snapshot: Snapshot;
  previous: AppliedRecord | null;
}

/** An AgentMessage body kept until the controller has it: an apply result until its Ack, the others until written to a stream (dates as ISO strings). */
export interface OutboxEntry {
  $case: 'applyResult' | 'driftReport' | 'commandResult';
  value: Record<string, unknown>;
}

export interface AgentState {
  version: 1;
  applied: AppliedRecord | null;
  pending: PendingConfirm | null;
  /** After a confirm: where ROLLBACK goes (one level). */
  rollback: { snapshot: Snapshot; previous: AppliedRecord | null } | null;
  outbox: OutboxEntry[];
  /**
   * The router kernel's boot id when `applied` was last applied, re-applied or restored
   * (agent/apply/reboot.ts): another one at start means the router rebooted and lost it.
   * Null: not known (unreadable then, or a state file written before it was recorded).
   */
  bootId: string | null;
}

export const EMPTY_STATE: AgentState = {
  version: 1,
  applied: null,
  pending: null,
  rollback: null,
  outbox: [],
  bootId: null,
};

export interface StateStore {
  load(): Promise<AgentState>;
  save(state: AgentState): Promise<void>;
}

export class FileStateStore implements StateStore {
  constructor(readonly path: string) {}

  async load(): Promise<AgentState> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return structuredClone(EMPTY_STATE);
    }
    try {
      const parsed = JSON.parse(text) as AgentState;
      if (parsed.version !== 1) throw new Error(`unknown state version ${String(parsed.version)}`);
      return { ...structuredClone(EMPTY_STATE), ...parsed };
    } catch (err) {
      // A corrupt file must not stop the agent; keep it aside for a human and start clean.
      await rename(this.path, `${this.path}.corrupt-${Date.now()}`).catch(() => undefined);
      console.error(`agent: state file ${this.path} unreadable (${(err as Error).message}); starting without it`);
      return structuredClone(EMPTY_STATE);
    }
  }

  private writing: Promise<void> = Promise.resolve();

  /**
   * Writes the state as it is at this call. Saves run one after another: two writes into the
   * same temporary file at once (an apply and an Ack, say) would interleave their bytes.
   */
  save(state: AgentState): Promise<void> {
    const text = JSON.stringify(state);
    const run = this.writing.then(() => this.write(text));
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async write(text: string): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp-${process.pid}`;
    await writeFile(tmp, text, { mode: 0o600 });
    await rename(tmp, this.path);
  }
}

export class MemoryStateStore implements StateStore {
  private state: AgentState = structuredClone(EMPTY_STATE);
  async load(): Promise<AgentState> {
    return structuredClone(this.state);
  }
  async save(state: AgentState): Promise<void> {
    this.state = structuredClone(state);
  }
}
