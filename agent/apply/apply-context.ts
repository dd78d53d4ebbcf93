/**
 * What the ApplyManager's parts (agent/apply/confirm-window.ts, agent/apply/reapply.ts) share
 * with it: the router, the agent's state of it, and the way results leave. Every call is made
 * from inside the manager's queue, so the parts never see the state change under them.
 */
import type { ApplyResult_Status } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { RouterHost } from '../../core/host/router-host.js';
import type { ApplyResultFields, ApplyResultValue } from './apply-result.js';
import type { RouterDatapath } from './router-datapath.js';
import type { AgentState } from './state-store.js';

export interface ApplyContext {
  readonly host: RouterHost;
  /** What the parts change and read in the router's kernel. */
  readonly datapath: RouterDatapath;
  readonly now: () => number;
  log(message: string): void;
  /** The agent state (loaded by the manager's init). */
  state(): AgentState;
  /** Writes the whole agent state. */
  save(): Promise<void>;
  /** Reports an ApplyResult: kept in the outbox, then sent. */
  result(status: ApplyResult_Status, fields: ApplyResultFields): Promise<ApplyResultValue>;
  /** Runs `fn`, which brings the datapath to the eligible WAN set of now, under the WAN watch. */
  followingWan<T>(fn: () => Promise<T>): Promise<T>;
  /** The router kernel's boot id now; null where it cannot be read. */
  bootId(): Promise<string | null>;
  /** The manager was stopped: nothing new is started. */
  stopped(): boolean;
}
