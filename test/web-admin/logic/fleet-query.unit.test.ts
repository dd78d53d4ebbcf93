import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  activeFilterCount,
  apiFilter,
  apiListQuery,
  searchOfView,
  viewOfSearch,
  withFilter,
  withSortToggled,
  type FleetView,
} from '../../../web-admin/src/pages/fleet/fleet-query.js';

const view = (query: string) => viewOfSearch(new URLSearchParams(query));

describe("the fleet table's state in the URL", () => {
  it('reads every filter, the sort and the cursor from the query string', () => {
    expect(
      view(
        'q=ams&status=online&soc=MT7621&model=AX3000&release=23.05&placement=proxy&revisionState=pending' +
          '&drift=drifted&applyResult=failed&tags=site:ams,group:canary&tag=x&sort=-lastSeen&cursor=abc',
      ),
    ).toEqual({
      filter: {
        q: 'ams',
        status: 'online',
        soc: 'MT7621',
        model: 'AX3000',
        release: '23.05',
        placement: 'proxy',
        revisionState: 'pending',
        drift: 'drifted',
        applyResult: 'failed',
        tags: ['site:ams', 'group:canary', 'x'],
      },
      sort: { column: 'lastSeen', descending: true },
      cursor: 'abc',
    });
  });

  it('leaves out what a link cannot mean: unknown choices, sorts, empty values', () => {
    expect(view('status=sleeping&sort=colour&soc=&drift=maybe&placement=moon&tags=,,')).toEqual({ filter: {} });
  });

  it('writes the same link for the same view, in a stable order', () => {
    const v: FleetView = { filter: { soc: 'MT7621', q: 'lab' }, sort: { column: 'name', descending: false } };
    expect(searchOfView(v).toString()).toBe('q=lab&soc=MT7621&sort=name');
    expect(searchOfView({ filter: { tags: ['a', 'b'] } }).toString()).toBe('tags=a%2Cb');
  });

  it('round-trips any view through its query string', () => {
    const text = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() === s && !s.includes(','));
    const filter = fc.record(
      {
        q: text,
        soc: text,
        model: text,
        release: text,
        status: fc.constantFrom('online' as const, 'offline' as const, 'never_seen' as const),
        drift: fc.constantFrom('drifted' as const, 'clean' as const, 'unreported' as const),
        applyResult: fc.constantFrom('applied' as const, 'failed' as const, 'none' as const),
        tags: fc.uniqueArray(text, { minLength: 1, maxLength: 4 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        filter,
        fc.option(fc.constantFrom('name' as const, 'soc' as const, 'lastSeen' as const)),
        fc.boolean(),
        (f, column, descending) => {
          const v: FleetView = { filter: f, ...(column ? { sort: { column, descending } } : {}) };
          expect(viewOfSearch(searchOfView(v))).toEqual(v);
        },
      ),
    );
  });

  it('a filter change drops the cursor and removes emptied filters; the sort stays', () => {
    const v = view('soc=MT7621&status=online&sort=-name&cursor=abc');
    expect(withFilter(v, { soc: '' })).toEqual({
      filter: { status: 'online' },
      sort: { column: 'name', descending: true },
    });
    expect(withFilter(v, { tags: [] }).cursor).toBeUndefined();
  });

  it('clicking a column sorts ascending, then descending, and goes back to the first page', () => {
    const a = withSortToggled(view('cursor=abc'), 'soc');
    expect(a).toEqual({ filter: {}, sort: { column: 'soc', descending: false } });
    expect(withSortToggled(a, 'soc').sort).toEqual({ column: 'soc', descending: true });
    expect(withSortToggled(withSortToggled(a, 'soc'), 'name').sort).toEqual({ column: 'name', descending: false });
  });

  it("becomes the API's query: filters, limit, sort and cursor", () => {
    expect(apiListQuery(view('soc=MT7621&tags=a,b&sort=-name&cursor=c1'), 50)).toEqual({
      soc: 'MT7621',
      tags: ['a', 'b'],
      limit: 50,
      sort: '-name',
      cursor: 'c1',
    });
    expect(apiFilter({ soc: '', tags: [], q: 'x' })).toEqual({ q: 'x' });
    expect(activeFilterCount(view('soc=a&q=b&sort=name').filter)).toBe(2);
  });
});
