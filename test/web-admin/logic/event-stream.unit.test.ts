import { afterEach, describe, expect, it, vi } from 'vitest';
import { followEvents, type ServerEvent, type StreamState } from '../../../web-admin/src/api/event-stream.js';

/** A response whose body arrives in `chunks`, as a controller's stream may split it anywhere. */
const streamOf = (chunks: string[]) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    }),
    { status: 200, headers: { 'content-type': 'text/event-stream' } },
  );

/** Follows `url` with fetch answering `answers` in turn, until the stream ends or fails. */
async function follow(answers: (() => Response)[]) {
  const requests: RequestInit[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((_url: string, init: RequestInit) => {
      requests.push(init);
      const answer = answers.shift();
      return Promise.resolve(answer ? answer() : streamOf([]));
    }),
  );
  const events: ServerEvent[] = [];
  const states: StreamState[] = [];
  const auth = { csrfToken: () => null, bearerToken: () => 'tok', onUnauthenticated: vi.fn() };
  await new Promise<void>((resolve) => {
    const stop = followEvents('/v1/stream', { auth, onEvent: (e) => events.push(e) }, (state) => {
      states.push(state);
      if (state.status === 'ended' || state.status === 'failed') {
        stop();
        resolve();
      }
    });
  });
  return { events, states, requests, auth };
}

afterEach(() => vi.unstubAllGlobals());

describe('following a server-sent event stream', () => {
  it('delivers events however the stream is split, with CRLF or LF, and ends at "end"', async () => {
    const text = 'event: progress\r\ndata: {"a":1}\r\n\r\n: keepalive\n\nevent: end\ndata: {"state":"completed"}\n\n';
    for (const cut of [1, 15, 17, 30, 50, text.length - 1]) {
      const { events, states, requests } = await follow([() => streamOf([text.slice(0, cut), text.slice(cut)])]);
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'progress', data: '{"a":1}', id: null },
        { event: 'end', data: '{"state":"completed"}', id: null },
      ]);
      expect(states.map((s) => s.status)).toEqual(['connecting', 'open', 'ended']);
      expect(requests[0]!.headers).toEqual({ accept: 'text/event-stream', authorization: 'Bearer tok' });
      expect(requests[0]!.credentials).toBe('same-origin');
    }
  });

  it("reconnects after the stream's error marker or a 5xx, saying why, and goes on", async () => {
    const { events, states } = await follow([
      () => streamOf(['data: one\n\nevent: error\ndata: {"message":"the stream reached its time limit"}\n\n']),
      () => Response.json({ message: 'the controller is restarting' }, { status: 503 }),
      () => streamOf(['event: end\ndata: {}\n\n']),
    ]);
    expect(events.map((e) => e.event)).toEqual(['message', 'end']);
    const reasons = states.flatMap((s) => (s.status === 'reconnecting' && s.reason !== 'connecting' ? [s.reason] : []));
    expect(reasons).toEqual(['the stream reached its time limit', 'the controller is restarting']);
    expect(states.at(-1)).toEqual({ status: 'ended' });
  });

  it('stops at a refusal; a 401 also ends the session', async () => {
    const refused = await follow([() => Response.json({ message: 'not yours' }, { status: 403 })]);
    expect(refused.states.at(-1)).toMatchObject({ status: 'failed', failure: { message: 'not yours' } });
    expect(refused.auth.onUnauthenticated).not.toHaveBeenCalled();
    const expired = await follow([() => Response.json({ message: 'sign in' }, { status: 401 })]);
    expect(expired.states.at(-1)?.status).toBe('failed');
    expect(expired.auth.onUnauthenticated).toHaveBeenCalledOnce();
  });
});
