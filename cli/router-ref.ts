/** A router named on the command line by its name or its id, as the API wants it: its id. */
import { ApiCallError, type ApiClient } from './api-client.js';
import type * as Api from './api-client.js';
import { query } from './cli-context.js';

/**
 * The id of the router REF names: the router whose name is exactly REF (names are unique),
 * else the router whose id is REF. Decommissioned routers count: their alerts stay. Neither
 * is an API error (exit 1) naming REF.
 */
export async function resolveRouterId(api: ApiClient, ref: string): Promise<string> {
  const page = await api.get<Api.RouterPage>(`/v1/routers${query({ q: ref, decommissioned: 'include', limit: 100 })}`);
  const named = page.items.find((r) => r.name === ref);
  if (named) return named.id;
  try {
    return (await api.get<{ id: string }>(`/v1/routers/${encodeURIComponent(ref)}`)).id;
  } catch (err) {
    if (err instanceof ApiCallError && (err.status === 404 || err.status === 400))
      throw new ApiCallError(404, 'not_found', `no router is named "${ref}" or has that id`);
    throw err;
  }
}
