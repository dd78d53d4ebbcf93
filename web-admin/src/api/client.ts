import { createWrtfleetClient, WrtfleetError, type Middleware, type paths } from '@wrtfleet/client';
import { failureFrom, networkFailure } from './api-error.js';

export type ApiPaths = paths;

/** How the client authenticates its calls; the session context provides it. */
export interface ClientAuth {
  /** The session's CSRF token, sent with every call that is not GET or HEAD. */
  csrfToken(): string | null;
  /** An API token held in memory, sent as a bearer token (a token pasted at sign-in before sessions). */
  bearerToken(): string | null;
  /** A call was refused 401: the session ended. */
  onUnauthenticated(): void;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The console's typed REST client: @wrtfleet/client (openapi-fetch over the types generated
 * from the controller's OpenAPI document), same-origin only: the base URL is the page's own and
 * fetch's default `same-origin` credentials send the session cookie. On top of the package's
 * bearer token, the console adds the session's CSRF header and notices a session that ended.
 * Pages call it as `unwrap(api.GET('/v1/routers', { params: { query } }))`.
 */
export function createApiClient(auth: ClientAuth) {
  const client = createWrtfleetClient({ baseUrl: '', token: () => auth.bearerToken() });
  const session: Middleware = {
    onRequest({ request }) {
      const csrf = auth.csrfToken();
      if (csrf && !SAFE_METHODS.has(request.method)) request.headers.set('x-csrf-token', csrf);
      return request;
    },
    onResponse({ response, schemaPath }) {
      // Signing in answers 401 for a wrong password: that is not a session ending.
      if (response.status === 401 && schemaPath !== '/v1/session') auth.onUnauthenticated();
      return undefined;
    },
  };
  client.use(session);
  return client;
}

export type ApiClient = ReturnType<typeof createApiClient>;

interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call; throws an ApiFailure with the controller's message otherwise.
 * The console keeps its own failure class (what its error notices show, `unauthenticated`).
 */
export async function unwrap<T>(call: Promise<CallResult<T>>): Promise<T> {
  let result: CallResult<T>;
  try {
    result = await call;
  } catch (error) {
    // The package reports an unreachable controller as a status-0 WrtfleetError; say why fetch failed.
    throw networkFailure(error instanceof WrtfleetError && error.status === 0 ? (error.cause ?? error) : error);
  }
  if (result.response.ok) return result.data as T;
  throw failureFrom(result.response.status, result.response.statusText, result.error);
}
