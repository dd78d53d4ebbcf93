import { EMPTY_STATE, type AgentState, type StateStore } from '../apply/state-store.js';

/**
 * A simulated router's agent state: the object its ApplyManager loaded and changes is the
 * state, so a save has nothing to write. MemoryStateStore copies the whole state (plans,
 * snapshots, the outbox) on every save, and a simulated fleet of thousands saves on every
 * result and Ack. Gone with the router object, as a new agent on a new device starts empty.
 */
export class HeldStateStore implements StateStore {
  async load(): Promise<AgentState> {
    return structuredClone(EMPTY_STATE);
  }

  async save(): Promise<void> {}
}
