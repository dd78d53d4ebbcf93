import type { RouterDirectory } from './router-directory.js';

/** Routers per `changed` event; more than this is `truncated` (the reader reloads its view). */
export const MAX_IDS_PER_CHANGE = 200;
/**
 * A change stamped at T may commit a little after a look that already passed T; each look
 * reaches back this far and skips what it has sent, so such a change still shows.
 */
const LOOK_BACK_MS = 3000;

/**
 * Which routers changed since the last look, coalesced (a router that changed twice is listed
 * once) and bounded. Stateless on the server beyond this object: the database's stamps
 * (Router.stateChangedAt, set by a trigger) are the feed, so it works across replicas.
 */
export class RouterChangeFeed {
  /** id → the stamp already reported, for the changes inside the look-back window. */
  private sent = new Map<string, string>();
  private since: string;

  constructor(
    private readonly directory: RouterDirectory,
    startAt: string,
  ) {
    this.since = startAt;
  }

  /**
   * Takes what already changed inside the look-back window as reported: those changes are
   * older than the reader's first view of the table, which includes them.
   */
  async prime(): Promise<void> {
    const from = new Date(Date.parse(this.since) - LOOK_BACK_MS).toISOString();
    for (const { id, at } of await this.directory.changedSince(from, MAX_IDS_PER_CHANGE * 5)) this.sent.set(id, at);
  }

  async next(): Promise<{ ids: string[]; truncated: boolean }> {
    const from = new Date(Date.parse(this.since) - LOOK_BACK_MS).toISOString();
    const rows = await this.directory.changedSince(from, MAX_IDS_PER_CHANGE * 5);
    const ids = new Set<string>();
    for (const { id, at } of rows) {
      if (this.sent.get(id) === at) continue;
      this.sent.set(id, at);
      ids.add(id);
      if (at > this.since) this.since = at;
    }
    // Forget what fell out of the window: it can no longer come back in a look.
    for (const [id, at] of this.sent) if (Date.parse(at) < Date.parse(from)) this.sent.delete(id);
    const list = [...ids];
    const truncated = list.length > MAX_IDS_PER_CHANGE || rows.length === MAX_IDS_PER_CHANGE * 5;
    return { ids: list.slice(0, MAX_IDS_PER_CHANGE), truncated };
  }
}
