import type { components, paths } from './schema.js';

export type { components, paths };

/** The HTTP methods the controller's API uses. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The JSON body of METHOD PATH's answer with status S (`ResponseOf<'/v1/rollouts/{id}', 'get'>`),
 * from the types generated from the controller's own schemas: a client that reads a field the
 * API lacks, or that a change to a route removed, fails its typecheck instead of at run time.
 */
export type ResponseOf<P extends keyof paths, M extends Method, S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

/** The JSON body METHOD PATH takes. */
export type RequestBodyOf<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** A rollout as GET /v1/rollouts/{id} answers it. */
export type Rollout = ResponseOf<'/v1/rollouts/{id}', 'get'>;
/** A page of GET /v1/routers. */
export type RouterPage = ResponseOf<'/v1/routers', 'get'>;
/** One router of that listing. */
export type RouterListItem = RouterPage['items'][number];
