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
