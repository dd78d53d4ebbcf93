import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The error body a stream ends with: the API's error shape (server/api/errors.ts). */
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
 * and closes it. The failure is logged under the request id the marker carries.
 */
export async function streamResponse(request: FastifyRequest, reply: FastifyReply, options: StreamOptions) {
  const res = reply.raw;
  let started = false;
  let clientGone = false;
  let expired = false;
  const waiting = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...waiting]) wake();
  };
  const onClose = () => {
    clientGone = true;
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
  }
  // A producer that wrote nothing (an empty export) still answers 200 with an empty body.
  begin();
  if (!clientGone) res.end();
}
