/**
 * The API's one error shape ({ error, message, details?, requestId? }, server/http/errors.ts) as
 * an exception. Every way a call can fail (a 4xx or 5xx answer, a controller that cannot be
 * reached, a stream that ends in an error) is this one class, so a caller handles one thing and
 * can always show the controller's own sentence.
 */

/** Which part of a request a complaint is about (`/spec/l3Rewrite/ttl/value`) and what is wrong with it. */
export interface ErrorDetail {
  path: string;
  message: string;
  /** Where the path points: body, querystring, params. */
  in?: string;
}

export class WrtfleetError extends Error {
  constructor(
    /** HTTP status; 0 when the controller did not answer at all, 200 for a stream that ended in an error. */
    readonly status: number,
    /** The API's machine code ("invalid_request", "not_found"), or "unreachable" / "http_error". */
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'WrtfleetError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The error for a parsed error body. A body that is not the API's shape (a proxy's HTML page, an
 * empty body) still gives a sentence with the status, never a blank.
 */
export function errorFromBody(status: number, body: unknown, statusText = ''): WrtfleetError {
  if (isRecord(body) && typeof body.message === 'string' && body.message !== '') {
    const details = Array.isArray(body.details)
      ? body.details.filter(isRecord).map((d) => ({
          path: typeof d.path === 'string' ? d.path : '',
          message: typeof d.message === 'string' ? d.message : '',
          ...(typeof d.in === 'string' ? { in: d.in } : {}),
        }))
      : [];
    return new WrtfleetError(
      status,
      typeof body.error === 'string' ? body.error : 'http_error',
      body.message,
      details,
      typeof body.requestId === 'string' ? body.requestId : null,
    );
  }
  const text = typeof body === 'string' && body.trim() !== '' && body.length < 200 ? `: ${body.trim()}` : '';
  return new WrtfleetError(status, 'http_error', `HTTP ${status}${statusText ? ` ${statusText}` : ''}${text}`);
}

/** The error for a non-2xx response, reading its body (JSON when it is). */
export async function errorFromResponse(response: Response): Promise<WrtfleetError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: the text itself */
  }
  return errorFromBody(response.status, body, response.statusText);
}

/** fetch itself failed: no answer at all (refused, DNS, TLS, reset). Status 0. */
export function transportError(baseUrl: string, cause: unknown): WrtfleetError {
  // Node's fetch says only "fetch failed"; the reason (ECONNREFUSED ...) is in its cause.
  const error = cause as (Error & { cause?: unknown }) | undefined;
  const inner = error?.cause instanceof Error ? error.cause.message : undefined;
  const reason = inner || error?.message || String(cause);
  const failure = new WrtfleetError(
    0,
    'unreachable',
    `cannot reach the controller at ${baseUrl || 'this origin'} (${reason})`,
  );
  return Object.assign(failure, { cause });
}

/** The error a stream ended with (`event: error`, or a JSON-lines export's last line): the response itself was a 200. */
export function streamError(body: unknown): WrtfleetError {
  const parsed = isRecord(body) ? body : {};
  const id = typeof parsed.requestId === 'string' ? parsed.requestId : null;
  const message = typeof parsed.message === 'string' ? parsed.message : 'the stream ended in an error';
  return new WrtfleetError(
    200,
    typeof parsed.error === 'string' ? parsed.error : 'stream_error',
    `${message}${id ? ` (request ${id})` : ''}`,
    [],
    id,
  );
}

/** What an openapi-fetch call resolves with. */
export interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or its failure thrown as a WrtfleetError:
 * `const page = await unwrap(client.GET('/v1/routers', { params: { query: { limit: 50 } } }))`.
 */
export async function unwrap<T>(call: Promise<CallResult<T>> | CallResult<T>): Promise<T> {
  const result = await call;
  if (result.response.ok) return result.data as T;
  throw errorFromBody(result.response.status, result.error, result.response.statusText);
}
