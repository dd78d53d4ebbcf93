/**
 * Helpers the command-job tests share: waiting for a job's state through the API, and
 * collecting a job's server-sent events as a watcher (the CLI) reads them.
 */
import type { CommandView, CommandTargetView } from '../../server/commands/command-view.js';
import { eventually, type authedFetch } from './controller.js';

type Api = ReturnType<typeof authedFetch>;

/** Polls GET /v1/commands/{id} until `done` holds; returns that view. */
export function waitForJob(
  api: Api,
  id: string,
  done: (job: CommandView) => boolean,
  timeoutMs = 20_000,
  what = 'the command',
): Promise<CommandView> {
  let last: unknown;
  return eventually(
    async () => {
      const r = await api<CommandView>(`/v1/commands/${id}`);
      last = r.body;
      return r.status === 200 && done(r.body) ? r.body : undefined;
    },
    timeoutMs,
    what,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last seen: ${JSON.stringify(last)}`);
  });
}

/** Every target of a job (one page is enough for the tests' fleets), by router id. */
export async function targetsOf(api: Api, id: string, query = ''): Promise<Map<string, CommandTargetView>> {
  const r = await api<{ items: CommandTargetView[] }>(`/v1/commands/${id}/targets?limit=500${query}`);
  if (r.status !== 200) throw new Error(`targets of ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  return new Map(r.body.items.map((t) => [t.routerId, t]));
}

export interface SseFrame {
  event: string;
  data: unknown;
}

/** Reads a job's event stream to its end (or `timeoutMs`) and returns its frames in order. */
export async function jobEvents(baseUrl: string, token: string, id: string, timeoutMs = 60_000): Promise<SseFrame[]> {
  const res = await fetch(`${baseUrl}/v1/commands/${id}/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!/text\/event-stream/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`events of ${id}: ${res.status} ${await res.text()}`);
  const frames: SseFrame[] = [];
  for (const raw of (await res.text()).split('\n\n')) {
    const event = /^event: (.+)$/m.exec(raw)?.[1];
    const data = /^data: (.+)$/m.exec(raw)?.[1];
    if (event && data) frames.push({ event, data: JSON.parse(data) });
  }
  return frames;
}

/**
 * A job's event stream read as it arrives: `until` resolves once a frame matching it came (so a
 * test can wait for the watcher to have seen a state before moving on), `done` with every frame
 * once the stream ends. A state that lasts less than the stream's poll (500 ms) may never be
 * seen by a watcher that connected late; tests that assert on it wait for it first.
 */
export function watchJobEvents(baseUrl: string, token: string, id: string, timeoutMs = 60_000) {
  const frames: SseFrame[] = [];
  const waiters: { match: (f: SseFrame) => boolean; resolve: () => void }[] = [];
  const done = (async () => {
    const res = await fetch(`${baseUrl}/v1/commands/${id}/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!/text\/event-stream/.test(res.headers.get('content-type') ?? ''))
      throw new Error(`events of ${id}: ${res.status} ${await res.text()}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const raw = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = /^event: (.+)$/m.exec(raw)?.[1];
        const data = /^data: (.+)$/m.exec(raw)?.[1];
        if (!event || !data) continue;
        const frame = { event, data: JSON.parse(data) as unknown };
        frames.push(frame);
        for (const w of waiters.filter((x) => x.match(frame))) w.resolve();
      }
    }
    return frames;
  })();
  // Awaited by the test later; marked handled now so a stream that fails early is not reported
  // as an unhandled rejection before then.
  void done.catch(() => undefined);
  const until = (match: (f: SseFrame) => boolean, ms = 20_000) =>
    frames.some(match)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no such event of ${id} within ${ms} ms`)), ms);
          waiters.push({
            match,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        });
  return { done, until };
}
