import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { WrtfleetClient } from './create-client.js';
import { streamError, transportError, WrtfleetError } from './errors.js';

/** One server-sent event as the controller writes it: `event: progress\ndata: {...}\n\n`. */
export interface ServerEvent<Data = unknown> {
  /** The event name; `message` when the frame names none. */
  event: string;
  /** The data parsed as JSON (the controller always sends JSON), or the text when it is not. */
  data: Data;
  id: string | null;
}

export interface StreamOptions {
  /** Stops the stream: the iterator then throws the signal's reason, as fetch does. */
  signal?: AbortSignal;
}

function parsed(message: EventSourceMessage): ServerEvent {
  let data: unknown = message.data;
  try {
    data = JSON.parse(message.data);
  } catch {
    /* not JSON: the text */
  }
  return { event: message.event ?? 'message', data, id: message.id ?? null };
}

/**
 * Follows one of the API's server-sent event streams (GET /v1/rollouts/{id}/events,
 * /v1/routers/events, /v1/commands/{id}/events, /v1/jobs/{id}/events), yielding each event.
 * The iterator ends when the controller closes the stream (after `event: end` on streams that
 * have one). The controller ends a stream that failed midway or reached its time limit with
 * `event: error` carrying the error shape: that is thrown as a WrtfleetError (status 200, code
 * `internal` or `stream_time_limit`); reconnecting is the caller's choice, as waitForRollout
 * does. A refusal (404, 401) is thrown before the first event, a connection that breaks as a
 * status-0 WrtfleetError. Keepalive comments are skipped.
 * Leaving the loop early (break) closes the connection.
 */
export async function* streamEvents(
  client: WrtfleetClient,
  path: string,
  options: StreamOptions = {},
): AsyncGenerator<ServerEvent, void, undefined> {
  // Our own controller, so that a `break` in the caller's loop also closes the connection.
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    options.signal?.throwIfAborted();
    const response = await client.raw(path, {
      headers: { accept: 'text/event-stream' },
      signal: stop.signal,
    });
    if (!response.body) return;
    const queue: ServerEvent[] = [];
    const parser = createParser({ onEvent: (message) => queue.push(parsed(message)) });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
        while (queue.length) {
          const next = queue.shift()!;
          if (next.event === 'error') throw streamError(next.data);
          yield next;
        }
      }
    } finally {
      reader.releaseLock();
    }
    options.signal?.throwIfAborted();
  } catch (err) {
    // A read cut short by the caller's signal rejects with whatever undici says; say why instead.
    options.signal?.throwIfAborted();
    // A connection that broke midway ("terminated") is a transport failure like a refused one.
    if (err instanceof WrtfleetError) throw err;
    throw transportError(client.baseUrl, err);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
