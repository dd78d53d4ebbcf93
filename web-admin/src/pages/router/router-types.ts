import type { ApiPaths } from '../../api/client.js';

/** The API's answers the router page reads, named once. */
type Json<P extends keyof ApiPaths, M extends 'get' | 'post'> = ApiPaths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } };
}
  ? T
  : ApiPaths[P][M] extends { responses: { 201: { content: { 'application/json': infer T } } } }
    ? T
    : never;

export type RouterDetail = Json<'/v1/routers/{id}', 'get'>;
export type PlanPreviewBody = Json<'/v1/routers/{id}/plan', 'get'>;
export type RevisionsBody = Json<'/v1/routers/{id}/revisions', 'get'>;
export type ApplyResultsPage = Json<'/v1/routers/{id}/apply-results', 'get'>;
export type DriftBody = Json<'/v1/routers/{id}/drift', 'get'>;
export type TelemetryBody = Json<'/v1/routers/{id}/telemetry', 'get'>;
export type Command = Json<'/v1/routers/{id}/commands', 'post'>;
export type CommandKind = Command['kind'];
