import type { Logger } from 'pino';
import type { AuditLog } from './audit-log.js';

/** An event a caller can repeat at will: failed sign-ins, wrong current passwords, refusals. */
export interface RepeatedEntry {
  actor: string;
  action: string;
  targetType: string;
  targetId: string | null;
  /** Facts the same for every repeat of this kind (part of its key), recorded in `after` beside the count. */
  context?: Record<string, string>;
  requestId?: string | null;
}

interface Window {
  entry: RepeatedEntry;
  /** Occurrences after the first, which was written at once. */
  repeats: number;
  startedAt: number;
  lastAt: number;
}

/** The actor of the overflow kind: events of more kinds than fit, counted together. */
export const MANY_ACTORS = '(many)';

const keyOf = (e: RepeatedEntry) => JSON.stringify([e.action, e.actor, e.targetType, e.targetId, e.context ?? {}]);

/**
 * Audits events an attacker can repeat at will without letting a burst flood the audit log.
 * The first event of a kind (same action, actor, target and context) in a window is written
 * at once with `count: 1`; the repeats in that window are only counted, and written as one
 * event of the same action when the window closes, with `count` (the repeats), `firstAt` (the
 * window's first event) and `lastAt`. So the counts of a kind's events add up to how often it
 * happened. At most `maxKinds` kinds are open at once; a new kind beyond that is counted into
 * one overflow kind per action (actor `(many)`, no target), so spraying addresses or names
 * floods nothing either. In memory, per replica: a crash loses the counts of open windows
 * (their first events are written); `close` writes them at shutdown.
 */
export class RepeatedEventAudit {
  private readonly open = new Map<string, Window>();
  private readonly writing = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly audit: Pick<AuditLog, 'append'>,
    private readonly log: Pick<Logger, 'warn'>,
    readonly windowMs = 60_000,
    private readonly maxKinds = 1_000,
  ) {}

  /** Counts one event; resolves once the event written for it (the first of its window) is stored. */
  async note(event: RepeatedEntry, now = Date.now()): Promise<void> {
    let entry = event;
    let key = keyOf(entry);
    if (!this.open.has(key) && this.open.size >= this.maxKinds) {
      entry = { actor: MANY_ACTORS, action: event.action, targetType: event.targetType, targetId: null };
      key = keyOf(entry);
    }
    const window = this.open.get(key);
    if (window) {
      window.repeats += 1;
      window.lastAt = now;
      return;
    }
    this.open.set(key, { entry, repeats: 0, startedAt: now, lastAt: now });
    this.schedule();
    await this.track(
      this.audit.append({
        actor: entry.actor,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId,
        after: { ...entry.context, count: 1 },
        requestId: event.requestId ?? null,
      }),
    );
  }

  /** Writes the repeats of every window that has closed by `now` (every window with `all`). */
  async flush(all = false, now = Date.now()): Promise<void> {
    const due: Window[] = [];
    for (const [key, window] of this.open) {
      // Windows are inserted as they open, so the first still open ends the due ones.
      if (!all && window.startedAt + this.windowMs > now) break;
      this.open.delete(key);
      if (window.repeats > 0) due.push(window);
    }
    const written = due.map(({ entry, repeats, startedAt, lastAt }) =>
      this.track(
        this.audit.append({
          actor: entry.actor,
          action: entry.action,
          targetType: entry.targetType,
          targetId: entry.targetId,
          after: {
            ...entry.context,
            count: repeats,
            firstAt: new Date(startedAt).toISOString(),
            lastAt: new Date(lastAt).toISOString(),
          },
        }),
      ).catch((err: unknown) =>
        this.log.warn({ err, action: entry.action, count: repeats }, 'repeated events not audited'),
      ),
    );
    await Promise.all(written);
  }

  /** Writes every open window's repeats and waits for every write: call before the database closes. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.flush(true);
    await Promise.allSettled([...this.writing]);
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    const first = this.open.values().next().value;
    if (!first) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.flush().finally(() => this.schedule());
      },
      Math.max(0, first.startedAt + this.windowMs - Date.now()),
    );
    this.timer.unref();
  }

  private async track<T>(write: Promise<T>): Promise<T> {
    this.writing.add(write);
    try {
      return await write;
    } finally {
      this.writing.delete(write);
    }
  }
}
