import type { FleetFilter } from './fleet-query.js';

/**
 * What the operator selected: some routers by id, or every router that matches the filter
 * (not only the visible page). The second is held as the filter itself, so acting on it means
 * "all N that match" on the server, and a new filter ends it.
 */
export type Selection =
  { kind: 'ids'; ids: ReadonlySet<string> } | { kind: 'matching'; filter: FleetFilter; total: number };

export const NOTHING: Selection = { kind: 'ids', ids: new Set() };

export function isSelected(selection: Selection, id: string): boolean {
  return selection.kind === 'matching' || selection.ids.has(id);
}

/** A checkbox of one row. Unticking one row of "all that match" keeps the others on this page. */
export function toggle(selection: Selection, id: string, pageIds: readonly string[]): Selection {
  if (selection.kind === 'matching') return { kind: 'ids', ids: new Set(pageIds.filter((p) => p !== id)) };
  const ids = new Set(selection.ids);
  if (ids.has(id)) ids.delete(id);
  else ids.add(id);
  return { kind: 'ids', ids };
}

/** The header checkbox: selects the page's rows, or clears them when all are selected. */
export function togglePage(selection: Selection, pageIds: readonly string[]): Selection {
  if (selection.kind === 'matching') return NOTHING;
  const all = pageIds.length > 0 && pageIds.every((id) => selection.ids.has(id));
  const ids = new Set(selection.ids);
  for (const id of pageIds) {
    if (all) ids.delete(id);
    else ids.add(id);
  }
  return { kind: 'ids', ids };
}

/** The header checkbox's look: all, some or none of the page. */
export function pageState(selection: Selection, pageIds: readonly string[]): 'all' | 'some' | 'none' {
  if (selection.kind === 'matching') return pageIds.length ? 'all' : 'none';
  const n = pageIds.filter((id) => selection.ids.has(id)).length;
  return n === 0 ? 'none' : n === pageIds.length ? 'all' : 'some';
}

export function selectAllMatching(filter: FleetFilter, total: number): Selection {
  return { kind: 'matching', filter, total };
}

export function selectedCount(selection: Selection): number {
  return selection.kind === 'matching' ? selection.total : selection.ids.size;
}

/** What a bulk action's body names: `{ ids }` or `{ filter }`. */
export function bulkTarget(selection: Selection): { ids: string[] } | { filter: FleetFilter } {
  return selection.kind === 'matching' ? { filter: selection.filter } : { ids: [...selection.ids] };
}
