import { useContext, useEffect, useRef, useState } from 'react';
import { ApiFailure, failureFrom, networkFailure } from './api-error.js';
import type { ClientAuth } from './client.js';
import { SignInGeneration } from './sign-in-generation.js';
import { createParser } from 'eventsource-parser';

/** One server-sent event as the controller writes it ("event: progress\ndata: {...}\n\n"). */
export interface ServerEvent {
  event: string;
  data: string;
  id: string | null;
}

/** Where a live view stands: receiving, waiting to reconnect after a loss, or finished. */
export type StreamState =
  | { status: 'connecting' }
  | { status: 'open' }
  | { status: 'reconnecting'; reason: string; attempt: number }
  | { status: 'ended' }
  | { status: 'failed'; failure: ApiFailure };

export interface EventStreamOptions {
  /** Called for every event; the `end` event also ends the stream (no reconnect). */
  onEvent(event: ServerEvent): void;
  auth: ClientAuth;
}

/** Waits between reconnects grow to this, with jitter, so a restarted controller is not hit all at once. */
const MAX_BACKOFF_MS = 15_000;

/**
 * Follows a server-sent event stream of the API over fetch (so it carries the same
 * credentials as every other call and sees the status of a refusal), parsed by
 * eventsource-parser, and reconnects after a
 * lost connection or a stream that reached its time limit, saying so through its state. A
 * 4xx refusal is final: the stream fails with the controller's message.
 */
export function followEvents(url: string, options: EventStreamOptions, onState: (state: StreamState) => void) {
  let stopped = false;
  let controller: AbortController | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;

  const retry = (reason: string) => {
    if (stopped) return;
    attempt += 1;
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
    onState({ status: 'reconnecting', reason, attempt });
    timer = setTimeout(() => void connect(), delay);
  };

  const connect = async () => {
    if (stopped) return;
    controller = new AbortController();
    onState(attempt === 0 ? { status: 'connecting' } : { status: 'reconnecting', reason: 'connecting', attempt });
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    const bearer = options.auth.bearerToken();
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let response: Response;
    try {
      response = await fetch(url, { headers, credentials: 'same-origin', signal: controller.signal });
    } catch (error) {
      if (!stopped) retry(networkFailure(error).message);
      return;
    }
    if (!response.ok || !response.body) {
      const body: unknown = await response.json().catch(() => null);
      const failure = failureFrom(response.status, response.statusText, body);
      if (response.status === 401) options.auth.onUnauthenticated();
      if (response.status >= 500) retry(failure.message);
      else onState({ status: 'failed', failure });
      return;
    }
    attempt = 0;
    onState({ status: 'open' });
    let ended = false;
    let lastError = 'the connection was lost';
    const parser = createParser({
      onEvent: ({ event = 'message', data, id }) => {
        if (event === 'error') {
          // The stream's own error marker (a time limit, a failure midway): reconnect to continue.
          lastError = messageOf(data) ?? lastError;
          return;
        }
        options.onEvent({ event, data, id: id ?? null });
        if (event === 'end') ended = true;
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      /* the connection broke: reconnect below */
    }
    if (stopped) return;
    if (ended) onState({ status: 'ended' });
    else retry(lastError);
  };

  void connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    controller?.abort();
  };
}

function messageOf(data: string): string | null {
  try {
    const body = JSON.parse(data) as { message?: unknown };
    return typeof body.message === 'string' ? body.message : null;
  } catch {
    return null;
  }
}

/**
 * `followEvents` for a component: starts when `url` is set, stops on unmount or when `url`
 * changes. The latest onEvent is used without reconnecting. A stream refused because the
 * session had ended starts again after the next sign-in.
 */
export function useEventStream(url: string | null, auth: ClientAuth, onEvent: (event: ServerEvent) => void) {
  const [state, setState] = useState<StreamState>({ status: 'connecting' });
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  });
  const [restarts, setRestarts] = useState(0);
  const generation = useContext(SignInGeneration);
  // Adjusted while rendering (not in an effect, which would render twice): a new sign-in.
  const [signedInAt, setSignedInAt] = useState(generation);
  if (signedInAt !== generation) {
    setSignedInAt(generation);
    if (state.status === 'failed' && state.failure.unauthenticated) setRestarts((n) => n + 1);
  }
  useEffect(() => {
    if (!url) return;
    return followEvents(url, { auth, onEvent: (event) => handler.current(event) }, setState);
  }, [url, auth, restarts]);
  return state;
}
