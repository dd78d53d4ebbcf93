import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { streamCaller } from './stream-slots.js';

/** The error body a stream ends with: the API's error shape (server/http/errors.ts). */
export interface StreamErrorBody {
  error: 'internal' | 'stream_time_limit';
  message: string;
  requestId: string;
}

/** How a format says "this stream ends in an error" in its own framing. */
export type ErrorMarker = (body: StreamErrorBody) => string;

/** JSON lines: the last line is the error object. */
export const ndjsonErrorLine: ErrorMarker = (body) => `${JSON.stringify(body)}\n`;

/** Server-sent events: an `error` event whose data is the error object. */
export const sseErrorEvent: ErrorMarker = (body) => `event: error\ndata: ${JSON.stringify(body)}\n\n`;

/** Headers of a server-sent event stream; no proxy may buffer or cache it. */
export const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-store',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** What a producer writes to; `open` turns false when the client leaves or the time limit passes. */
export interface StreamWriter {
  readonly open: boolean;
  /** Writes a chunk; resolves once the socket can take more (or the stream stopped). */
  write(chunk: string): Promise<void>;
  /** Waits, but no longer than the stream stays open. */
  pause(ms: number): Promise<void>;
}

export interface StreamOptions {
  headers: OutgoingHttpHeaders;
  errorMarker: ErrorMarker;
  /** The longest this response may stream; then it ends with a `stream_time_limit` marker. */
  maxSeconds: number;
  produce(out: StreamWriter): Promise<void>;
}

/**
 * A streamed 200 that always ends. The status line goes out with the first chunk, so a
 * producer that fails before writing anything answers through the error handler as JSON;
 * one that fails later, or runs past the time limit, ends the stream with an error marker
 * and closes it. The failure is logged under the request id the marker carries. Each open
 * stream holds one of its caller's slots (server/http/stream-slots.ts): past them, a 429.
 */
export async function streamResponse(request: FastifyRequest, reply: FastifyReply, options: StreamOptions) {
  const res = reply.raw;
  if (request.method === 'HEAD') {
    // Node writes no body for HEAD, so headers that wait for the first chunk would never go
    // out: a HEAD gets the stream's headers at once, and no producer runs for it.
    reply.hijack();
    res.writeHead(200, options.headers);
    res.end();
    return;
  }
  const release = request.server.streamSlots.acquire(streamCaller(request));
  let started = false;
  let clientGone = false;
  let expired = false;
  const waiting = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...waiting]) wake();
  };
  const onClose = () => {
    clientGone = true;
    release();
    wakeAll();
  };
  res.on('close', onClose);
  const limit = setTimeout(() => {
    expired = true;
    wakeAll();
  }, options.maxSeconds * 1000);

  // Resolves on the event, or early when the stream stops.
  const until = (arm: (done: () => void) => () => void) =>
    new Promise<void>((resolve) => {
      const done = () => {
        waiting.delete(done);
        disarm();
        resolve();
      };
      waiting.add(done);
      const disarm = arm(done);
    });

  const begin = () => {
    if (started) return;
    started = true;
    reply.hijack();
    res.writeHead(200, options.headers);
  };

  const out: StreamWriter = {
    get open() {
      return !clientGone && !expired;
    },
    async write(chunk) {
      if (clientGone) return;
      begin();
      if (res.write(chunk) || !out.open) return;
      await until((done) => {
        res.once('drain', done);
        return () => res.off('drain', done);
      });
    },
    async pause(ms) {
      if (!out.open) return;
      await until((done) => {
        const timer = setTimeout(done, ms);
        return () => clearTimeout(timer);
      });
    },
  };

  try {
    await options.produce(out);
    if (expired && !clientGone) {
      begin();
      res.write(
        options.errorMarker({
          error: 'stream_time_limit',
          message: `this response reached its time limit of ${options.maxSeconds} s; request it again to continue`,
          requestId: request.id,
        }),
      );
    }
  } catch (err) {
    if (!started) throw err;
    request.log.error({ err }, 'streamed response failed midway');
    if (!clientGone) {
      res.write(
        options.errorMarker({
          error: 'internal',
          message: 'the controller failed midway through this response; see its log',
          requestId: request.id,
        }),
      );
    }
  } finally {
    clearTimeout(limit);
    res.off('close', onClose);
    release();
  }
  // A producer that wrote nothing (an empty export) still answers 200 with an empty body.
  begin();
  if (!clientGone) res.end();
}

/** How often an unchanged event stream sends a comment line, so proxies keep it open. */
const KEEPALIVE_MS = 15_000;

/** A subject watched by polling the database, as `pollAsEvents` streams it. */
export interface PolledSubject<T> {
  /** The first reading, made before the stream starts (a missing subject is a 404 there). */
  first: T;
  /** Reads the subject again; null when it is gone. */
  read(): Promise<T | null>;
  /** What a `progress` event carries; a new event goes out only when this changes. */
  progress(current: T): unknown;
  /** True once the subject has ended: its last `progress`, then `end`. */
  ended(current: T): boolean;
  /** What the `end` event carries; null when the subject disappeared meanwhile. */
  end(current: T | null): unknown;
  intervalMs: number;
}

/**
 * Server-sent events of a subject read from the database every `intervalMs`, so the stream is
 * right whichever replica (or BullMQ worker) does the work: `event: progress` whenever the
 * progress changes, a keepalive comment about every 15 s when it does not, and `event: end`
 * once the subject has ended or is gone. Ends like every streamed response (`streamResponse`).
 */
export async function pollAsEvents<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  maxSeconds: number,
  subject: PolledSubject<T>,
) {
  const keepaliveEvery = Math.max(1, Math.round(KEEPALIVE_MS / subject.intervalMs));
  await streamResponse(request, reply, {
    headers: SSE_HEADERS,
    errorMarker: sseErrorEvent,
    maxSeconds,
    async produce(out) {
      let last = '';
      let idle = 0;
      let current: T | null = subject.first;
      while (out.open && current) {
        const data = JSON.stringify(subject.progress(current));
        if (data !== last) {
          await out.write(`event: progress\ndata: ${data}\n\n`);
          last = data;
          idle = 0;
        } else if (++idle % keepaliveEvery === 0) await out.write(': keepalive\n\n');
        if (subject.ended(current)) break;
        await out.pause(subject.intervalMs);
        if (!out.open) return;
        current = await subject.read();
      }
      if (out.open) await out.write(`event: end\ndata: ${JSON.stringify(subject.end(current))}\n\n`);
    },
  });
}
