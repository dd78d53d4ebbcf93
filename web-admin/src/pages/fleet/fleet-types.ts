import type { ApiPaths } from '../../api/client.js';

/** One row of the fleet table, as GET /v1/routers returns it. */
export type RouterRow =
  ApiPaths['/v1/routers']['get']['responses'][200]['content']['application/json']['items'][number];
export type RouterCounts = ApiPaths['/v1/routers/counts']['get']['responses'][200]['content']['application/json'];
export type CommandKind = ApiPaths['/v1/commands']['post']['requestBody']['content']['application/json']['kind'];
export type Command = ApiPaths['/v1/commands/{id}']['get']['responses'][200]['content']['application/json'];
