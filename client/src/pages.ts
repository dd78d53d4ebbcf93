import { unwrap, type CallResult } from './errors.js';

/** A page of one of the API's keyset-paged listings: its items and the cursor of the next page. */
export interface KeysetPage<Item> {
  items: Item[];
  /** Passed back as the `cursor` query parameter; null on the last page. */
  nextCursor: string | null;
}

/**
 * Every page of a keyset-paged listing (GET /v1/routers, /v1/rollouts/{id}/targets,
 * /v1/audit ...), fetched one at a time as the loop asks for them. `fetchPage` makes the call
 * for a cursor (undefined for the first page), so the filters, the sort and the page size stay
 * typed by the path:
 *
 *   for await (const page of pages((cursor) =>
 *     client.GET('/v1/routers', { params: { query: { limit: 100, status: 'online', cursor } } }),
 *   )) for (const router of page.items) console.log(router.name);
 *
 * A cursor holds the position, not an offset, so routers added or removed meanwhile neither
 * repeat nor shift the rest. A failed page is thrown as a WrtfleetError.
 */
export async function* pages<Page extends KeysetPage<unknown>>(
  fetchPage: (cursor: string | undefined) => Promise<CallResult<Page>>,
): AsyncGenerator<Page, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await unwrap(fetchPage(cursor));
    yield page;
    if (!page.nextCursor) return;
    // A controller that answered the same cursor again would loop forever: stop instead.
    if (page.nextCursor === cursor) throw new Error(`the listing answered cursor ${cursor} for its own next page`);
    cursor = page.nextCursor;
  }
}

/** The items of every page, one by one: `for await (const router of items((cursor) => ...))`. */
export async function* items<Item>(
  fetchPage: (cursor: string | undefined) => Promise<CallResult<KeysetPage<Item>>>,
): AsyncGenerator<Item, void, undefined> {
  for await (const page of pages(fetchPage)) yield* page.items;
}
