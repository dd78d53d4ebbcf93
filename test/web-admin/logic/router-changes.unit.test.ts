import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '../../../web-admin/src/api/query-keys.js';
import { invalidateChangedRouters, parseRouterChange } from '../../../web-admin/src/api/router-changes.js';

const event = (name: string, data: string) => ({ event: name, data, id: null });

describe("the fleet's live feed in the query cache", () => {
  it('reads a `changed` event, and nothing else', () => {
    expect(parseRouterChange(event('changed', '{"ids":["a","b"],"truncated":false}'))).toEqual({
      ids: ['a', 'b'],
      truncated: false,
    });
    expect(parseRouterChange(event('changed', '{"ids":[1,"c"],"truncated":true}'))).toEqual({
      ids: ['c'],
      truncated: true,
    });
    expect(parseRouterChange(event('ready', '{}'))).toBeNull();
    expect(parseRouterChange(event('changed', 'not json'))).toBeNull();
  });

  it("invalidates every router list and count and the changed routers' own queries, nothing else", async () => {
    const client = new QueryClient();
    const keys = {
      list: queryKeys.routerList({ limit: 50 }),
      filtered: queryKeys.routerList({ limit: 50, soc: 'MT7621' }),
      counts: queryKeys.routerCounts({}),
      changed: queryKeys.router('r1'),
      changedPanel: queryKeys.routerPart('r1', 'drift'),
      other: queryKeys.router('r2'),
      profiles: queryKeys.profiles,
    };
    for (const key of Object.values(keys)) client.setQueryData(key, { cached: true });
    await invalidateChangedRouters(client, ['r1']);
    const invalidated = Object.fromEntries(
      Object.entries(keys).map(([name, key]) => [name, client.getQueryState(key)?.isInvalidated]),
    );
    expect(invalidated).toEqual({
      list: true,
      filtered: true,
      counts: true,
      changed: true,
      changedPanel: true,
      other: false,
      profiles: false,
    });
  });
});
