import { describe, expect, it } from 'vitest';
import {
  apiQueryOf,
  exportFileName,
  exportPathOf,
  filterProblems,
  filtersFromSearch,
  instantOf,
  searchOfFilters,
} from '../../../web-admin/src/pages/audit/audit-filters.js';

describe("the audit page's filters", () => {
  it('read from a query string: trimmed, empty and unknown ones dropped', () => {
    const filters = filtersFromSearch(new URLSearchParams('actor=%20token%3Aadmin%20&router=&colour=blue&rollout=r1'));
    expect(filters).toEqual({ actor: 'token:admin', rollout: 'r1' });
  });

  it('round-trip through the URL in a fixed order, so equal filters are equal links', () => {
    const filters = { rollout: 'r1', actor: 'token:admin', from: '2026-03-01T10:00:00.000Z' };
    const search = searchOfFilters(filters);
    expect(search.toString()).toBe('actor=token%3Aadmin&rollout=r1&from=2026-03-01T10%3A00%3A00.000Z');
    expect(filtersFromSearch(search)).toEqual(filters);
  });

  it('carry a command, as the command page links to its events', () => {
    const filters = filtersFromSearch(new URLSearchParams('command=j1'));
    expect(filters).toEqual({ command: 'j1' });
    expect(apiQueryOf(filters)).toEqual({ command: 'j1' });
    expect(filterProblems({ command: 'x'.repeat(65) })).toEqual({ command: 'at most 64 characters' });
  });

  it('turn times into ISO instants for the API, and refuse what is not one', () => {
    expect(instantOf('2026-03-01T10:00:00Z')).toBe('2026-03-01T10:00:00.000Z');
    expect(instantOf('2026-03-01T12:00+02:00')).toBe('2026-03-01T10:00:00.000Z');
    expect(instantOf('2026-03-01T10:00')).toBe(new Date(2026, 2, 1, 10, 0).toISOString());
    expect(instantOf('yesterday')).toBeNull();
    expect(instantOf('2026-13-45T99:00')).toBeNull();
  });

  it('name the field that is wrong, and give no query until it is fixed', () => {
    expect(filterProblems({ from: 'soon' })).toEqual({ from: 'not a date and time' });
    expect(filterProblems({ from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' })).toEqual({
      to: 'must be after "from"',
    });
    expect(filterProblems({ router: 'x'.repeat(65) })).toEqual({ router: 'at most 64 characters' });
    expect(apiQueryOf({ actor: 'a', from: 'soon' })).toBeNull();
    expect(exportPathOf({ from: 'soon' })).toBeNull();
    expect(apiQueryOf({ actor: 'token:admin', to: '2026-03-01T10:00:00+01:00' })).toEqual({
      actor: 'token:admin',
      to: '2026-03-01T09:00:00.000Z',
    });
  });

  it('export exactly the filtered events, to a file named after the filters', () => {
    expect(exportPathOf({})).toBe('/v1/audit/export');
    expect(exportPathOf({ router: 'abc', action: 'drift.reported' })).toBe(
      '/v1/audit/export?action=drift.reported&router=abc',
    );
    expect(exportFileName({ actor: 'agent:kt,km14/1', router: 'abc' }, new Date('2026-03-01T10:00:00.123Z'))).toBe(
      'wrtfleet-audit_actor-agent_kt_km14_1_router-abc_2026-03-01T100000Z.jsonl',
    );
  });
});

describe('the time inputs of the audit filters', () => {
  it('show an instant from a link as local minutes, and keep text that is not one', async () => {
    const { localInputValue } = await import('../../../web-admin/src/pages/audit/audit-filters.js');
    const local = new Date(2026, 2, 1, 9, 5);
    expect(localInputValue(local.toISOString())).toBe('2026-03-01T09:05');
    expect(localInputValue('2026-03-01T09:05')).toBe('2026-03-01T09:05');
    expect(localInputValue('soon')).toBe('soon');
    expect(localInputValue(undefined)).toBe('');
  });
});
