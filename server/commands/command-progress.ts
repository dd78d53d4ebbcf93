/**
 * The live progress of a command as its event stream sends it: the command with its counts
 * when they change, and each router whose state changed since the last look. Read from the
 * database, so it is right whichever replica dispatches the command or records its answers.
 */
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import { commandView, targetView, type CommandView, type CommandTargetView } from './command-view.js';

export type ProgressEvent = { event: 'progress'; data: CommandView } | { event: 'target'; data: CommandTargetView };

/**
 * How far back each look reaches: a change is stamped when its transaction starts, so one that
 * commits later than another replica's newer one is still seen. The end of the command compares
 * every target once more, so nothing is missed even past this.
 */
const LOOKBACK_MS = 5_000;
/** Rows per query of one look. */
const PAGE = 1000;

const targetSelect = {
  routerId: true,
  state: true,
  reason: true,
  output: true,
  sentAt: true,
  finishedAt: true,
  updatedAt: true,
  router: { select: { name: true } },
} as const;

export class CommandProgressFeed {
  /** The state last sent per router; a router not in it was last seen queued. */
  private readonly sent = new Map<string, string>();
  private lastView = '';
  /** The first look reads every target; later ones what changed lately. */
  private looked = false;

  constructor(
    private readonly db: PrismaClient,
    private readonly commandId: string,
  ) {}

  /** What changed since the last call; `view` null when the command does not exist. */
  async look(): Promise<{ view: CommandView | null; events: ProgressEvent[] }> {
    const started = Date.now();
    const view = await commandView(this.db, this.commandId);
    if (!view) return { view, events: [] };
    const events: ProgressEvent[] = [];
    const since = new Date(this.looked ? started - LOOKBACK_MS : 0);
    this.looked = true;
    let after: { updatedAt: Date; routerId: string } | undefined;
    for (;;) {
      const rows = await this.db.commandTarget.findMany({
        where: {
          commandId: this.commandId,
          updatedAt: { gte: since },
          ...(after
            ? {
                OR: [
                  { updatedAt: { gt: after.updatedAt } },
                  { updatedAt: after.updatedAt, routerId: { gt: after.routerId } },
                ],
              }
            : {}),
        },
        orderBy: [{ updatedAt: 'asc' }, { routerId: 'asc' }],
        take: PAGE,
        select: targetSelect,
      });
      events.push(...this.changed(rows));
      if (rows.length < PAGE) break;
      after = rows.at(-1)!;
    }
    const data = JSON.stringify(view);
    if (data !== this.lastView) {
      this.lastView = data;
      // Counts after the routers they count, so a watcher's table is complete when a count says so.
      events.push({ event: 'progress', data: view });
    }
    return { view, events };
  }

  /** Every router whose state differs from what was sent: the command has ended, nothing may be left out. */
  async reconcile(): Promise<ProgressEvent[]> {
    const events: ProgressEvent[] = [];
    let after: string | undefined;
    for (;;) {
      const rows = await this.db.commandTarget.findMany({
        where: { commandId: this.commandId, ...(after ? { routerId: { gt: after } } : {}) },
        orderBy: { routerId: 'asc' },
        take: PAGE,
        select: targetSelect,
      });
      events.push(...this.changed(rows));
      if (rows.length < PAGE) return events;
      after = rows.at(-1)!.routerId;
    }
  }

  private changed(rows: Parameters<typeof targetView>[0][]): ProgressEvent[] {
    const events: ProgressEvent[] = [];
    for (const row of rows) {
      if ((this.sent.get(row.routerId) ?? 'queued') === row.state) continue;
      this.sent.set(row.routerId, row.state);
      events.push({ event: 'target', data: targetView(row, false) });
    }
    return events;
  }
}
