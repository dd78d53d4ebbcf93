/**
 * @wrtfleet/client: the controller's REST API for TypeScript, typed by the types generated from
 * its own OpenAPI document (schema.d.ts, `npm run web:api`). The console and the CLI use it;
 * so can any script (client/README.md).
 */
export {
  createWrtfleetClient,
  type TokenSource,
  type WrtfleetClient,
  type WrtfleetClientOptions,
} from './create-client.js';
export {
  errorFromBody,
  errorFromResponse,
  streamError,
  transportError,
  unwrap,
  WrtfleetError,
  type CallResult,
  type ErrorDetail,
} from './errors.js';
export { streamEvents, type ServerEvent, type StreamOptions } from './events.js';
export { items, pages, type KeysetPage } from './pages.js';
export { TERMINAL_ROLLOUT_STATES, waitForRollout, type WaitForRolloutOptions } from './rollouts.js';
export type {
  components,
  Method,
  paths,
  RequestBodyOf,
  ResponseOf,
  Rollout,
  RouterListItem,
  RouterPage,
} from './types.js';
/** openapi-fetch's middleware, for a caller that adds its own (the console's CSRF header). */
export type { Middleware } from 'openapi-fetch';
