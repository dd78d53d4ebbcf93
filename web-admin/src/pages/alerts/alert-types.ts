import type { ApiPaths } from '../../api/client.js';

/** The API's answers the alerts page and the router page's alerts read, named once. */
type Json<P extends keyof ApiPaths, M extends 'get' | 'post'> = ApiPaths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } };
}
  ? T
  : ApiPaths[P][M] extends { responses: { 201: { content: { 'application/json': infer T } } } }
    ? T
    : never;

export type Alert = Json<'/v1/alerts', 'get'>['items'][number];
export type AlertSummary = Json<'/v1/alerts/summary', 'get'>;
export type AlertRule = Json<'/v1/alert-rules', 'get'>['items'][number];
export type Silence = Json<'/v1/silences', 'get'>['items'][number];
export type SilenceBody = NonNullable<ApiPaths['/v1/silences']['post']['requestBody']>['content']['application/json'];
