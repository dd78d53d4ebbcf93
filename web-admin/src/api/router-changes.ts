import type { QueryClient } from '@tanstack/react-query';
import type { ServerEvent } from './event-stream.js';
import { queryKeys } from './query-keys.js';

/** GET /v1/routers/events' `changed` event: which routers changed, and whether more did than it lists. */
export interface RouterChange {
  ids: string[];
  truncated: boolean;
}

/** The change an event carries, or null for any other event (`ready`, a malformed one). */
export function parseRouterChange(event: ServerEvent): RouterChange | null {
  if (event.event !== 'changed') return null;
  try {
    const body = JSON.parse(event.data) as { ids?: unknown; truncated?: unknown };
    const ids = Array.isArray(body.ids) ? body.ids.filter((id): id is string => typeof id === 'string') : [];
    return { ids, truncated: body.truncated === true };
  } catch {
    return null;
  }
}

/**
 * What a change of these routers makes stale in the cache: every page and filter of the router
 * list and the counts (a change can move a router in or out of a filter, so rows cannot be
 * patched in place), and each changed router's own page. Only queries on screen read again;
 * the rest read when next shown.
 */
export function invalidateChangedRouters(client: QueryClient, ids: readonly string[]): Promise<unknown> {
  return Promise.all([
    client.invalidateQueries({ queryKey: queryKeys.routers }),
    ...ids.map((id) => client.invalidateQueries({ queryKey: queryKeys.router(id) })),
  ]);
}
