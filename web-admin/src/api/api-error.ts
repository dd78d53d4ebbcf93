/**
 * The API's one error shape ({ error, message, details?, requestId? }, server/http/errors.ts)
 * as the console handles it: every failed call becomes an ApiFailure whose message is the
 * controller's own sentence, so a page can always say what went wrong instead of going blank.
 */

export interface ErrorDetail {
  path?: string;
  in?: string;
  message?: string;
}

export class ApiFailure extends Error {
  constructor(
    /** HTTP status; 0 when the controller did not answer at all. */
    readonly status: number,
    /** The API's machine code ("invalid_request", "forbidden"), or "network" / "unexpected_response". */
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }

  /** The session is gone (expired, signed out elsewhere, token revoked): sign in again. */
  get unauthenticated(): boolean {
    return this.status === 401;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** An ApiFailure from a response's status and parsed body, whatever the body turned out to be. */
export function failureFrom(status: number, statusText: string, body: unknown): ApiFailure {
  if (isRecord(body) && typeof body.message === 'string' && body.message !== '') {
    const details = Array.isArray(body.details)
      ? body.details.filter(isRecord).map((d) => ({
          path: typeof d.path === 'string' ? d.path : undefined,
          in: typeof d.in === 'string' ? d.in : undefined,
          message: typeof d.message === 'string' ? d.message : undefined,
        }))
      : [];
    return new ApiFailure(
      status,
      typeof body.error === 'string' ? body.error : 'error',
      body.message,
      details,
      typeof body.requestId === 'string' ? body.requestId : null,
    );
  }
  // A proxy's HTML error page, an empty body: still a sentence, never a blank page.
  const text = typeof body === 'string' && body.trim() !== '' && body.length < 200 ? `: ${body.trim()}` : '';
  return new ApiFailure(status, 'unexpected_response', `the controller answered ${status} ${statusText}${text}`.trim());
}

/** The controller could not be reached (down, network gone, request aborted). */
export function networkFailure(cause: unknown): ApiFailure {
  const reason = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return new ApiFailure(0, 'network', `the controller did not answer${reason}; check the connection and retry`);
}

/** Any thrown value as an ApiFailure, for code that shows errors. */
export function asFailure(error: unknown): ApiFailure {
  if (error instanceof ApiFailure) return error;
  if (error instanceof Error) return new ApiFailure(0, 'client_error', error.message || String(error));
  return new ApiFailure(0, 'client_error', String(error));
}
