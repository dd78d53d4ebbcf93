/**
 * Where a simulated router's agent keeps its state (agent/apply/state-store.ts): the flash of
 * a router that does not exist, simulated in memory. It keeps the state object itself, not a
 * copy: one agent writes it, the next one after a simulated reboot reads it, and ten thousand
 * routers in one process do not each hold a second copy of their plans.
 */
import { EMPTY_STATE, type AgentState, type StateStore } from '../apply/state-store.js';

export class SimulatedFlash implements StateStore {
  private state: AgentState | undefined;

  async load(): Promise<AgentState> {
    this.state ??= structuredClone(EMPTY_STATE);
    return this.state;
  }

  async save(state: AgentState): Promise<void> {
    this.state = state;
  }
}
