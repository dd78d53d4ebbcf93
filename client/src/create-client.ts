import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { errorFromResponse, transportError } from './errors.js';
import type { paths } from './schema.js';

/** A token, or a function read on every call (a console whose token changes while it runs). */
export type TokenSource = string | (() => string | null | undefined);

export interface WrtfleetClientOptions {
  /** The controller's URL, e.g. https://wrtfleet.example:8080; '' for the page's own origin (the console). */
  baseUrl: string;
  /** An API token (POST /v1/tokens), sent as `authorization: Bearer`. */
  token?: TokenSource;
  /** Another fetch (tests, a proxy agent); globalThis.fetch by default. */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
}

/**
 * The openapi-fetch client typed by the API's `paths`, plus `raw` for what openapi-fetch does not
 * fit: streams (server-sent events, JSON lines), uploads streamed from disk, and paths a caller
 * has already built as strings.
 */
export type WrtfleetClient = Client<paths> & {
  readonly baseUrl: string;
  /**
   * One request to `baseUrl + path` with the client's token and headers; a transport failure or
   * a non-2xx answer is thrown as a WrtfleetError, so the Response returned is always a success.
   */
  raw(path: string, init?: RequestInit): Promise<Response>;
};

function tokenOf(source: TokenSource | undefined): string | null {
  const token = typeof source === 'function' ? source() : source;
  return token || null;
}

/**
 * A client of the controller's REST API. Typed calls answer `{ data, error, response }` as
 * openapi-fetch does (pass them to `unwrap` to get the data or a thrown WrtfleetError); a
 * controller that cannot be reached is thrown as a WrtfleetError with status 0 from every call.
 */
export function createWrtfleetClient(options: WrtfleetClientOptions): WrtfleetClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // Read at call time, not here: a test or a polyfill may replace globalThis.fetch later.
  const fetchOf = () => options.fetch ?? globalThis.fetch;

  // One place turns "fetch threw" into the API's error shape, for typed and raw calls alike. An
  // abort is the caller's own doing and stays the AbortError fetch threw.
  const guarded = async (send: () => Promise<Response>, signal: AbortSignal | null | undefined) => {
    try {
      return await send();
    } catch (err) {
      if (signal?.aborted || (err as Error)?.name === 'AbortError') throw err;
      throw transportError(baseUrl, err);
    }
  };

  const client = createClient<paths>({
    baseUrl,
    headers: options.headers,
    fetch: (request: Request) => guarded(() => fetchOf()(request), request.signal),
  });
  const bearer: Middleware = {
    onRequest({ request }) {
      const token = tokenOf(options.token);
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  };
  client.use(bearer);

  const raw = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(options.headers);
    const token = tokenOf(options.token);
    if (token) headers.set('authorization', `Bearer ${token}`);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    const response = await guarded(() => fetchOf()(`${baseUrl}${path}`, { ...init, headers }), init.signal);
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  };

  return Object.assign(client, { baseUrl, raw });
}
