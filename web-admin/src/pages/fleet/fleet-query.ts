/**
 * The fleet table's state as the URL carries it (filters, sort, page cursor) and as the API
 * takes it. One spelling for both: the URL's keys are the API's query parameters, so a shared
 * link and the request it makes say the same thing.
 */
import { API_ENUMS } from '../../api/api-enums.generated.js';

export const STATUSES = API_ENUMS.ConnectionStatus;
export const PLACEMENTS = API_ENUMS.Placement;
export const REVISION_STATES = API_ENUMS.RevisionState;
export const DRIFT_STATES = API_ENUMS.DriftState;
export const APPLY_RESULTS = API_ENUMS.ApplyResultFilter;
/** A capability: yes (probed, or predicted where unprobed), probed, predicted only, no, unknown. */
export const CAPABILITY_STATES = API_ENUMS.CapabilityState;
export const DATAPATH_MODES = API_ENUMS.DatapathMode;
export const OFFLOAD_MODES = API_ENUMS.OffloadMode;
/** Decommissioned routers are left out unless asked for (the API's default, `exclude`). */
export const DECOMMISSIONED = ['include', 'only'] as const;
export const SORT_COLUMNS = ['name', 'status', 'soc', 'model', 'release', 'lastSeen'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

export interface FleetFilter {
  status?: (typeof STATUSES)[number];
  soc?: string;
  model?: string;
  release?: string;
  placement?: (typeof PLACEMENTS)[number];
  revisionState?: (typeof REVISION_STATES)[number];
  drift?: (typeof DRIFT_STATES)[number];
  applyResult?: (typeof APPLY_RESULTS)[number];
  tags?: string[];
  q?: string;
  hardwareOffload?: (typeof CAPABILITY_STATES)[number];
  softwareOffload?: (typeof CAPABILITY_STATES)[number];
  ebpf?: (typeof CAPABILITY_STATES)[number];
  tcx?: (typeof CAPABILITY_STATES)[number];
  datapath?: (typeof DATAPATH_MODES)[number];
  offload?: (typeof OFFLOAD_MODES)[number];
  decommissioned?: (typeof DECOMMISSIONED)[number];
}

export interface FleetView {
  filter: FleetFilter;
  sort?: { column: SortColumn; descending: boolean };
  cursor?: string;
}

const TEXT_KEYS = ['soc', 'model', 'release', 'q'] as const;
const CHOICES = {
  status: STATUSES,
  placement: PLACEMENTS,
  revisionState: REVISION_STATES,
  drift: DRIFT_STATES,
  applyResult: APPLY_RESULTS,
  hardwareOffload: CAPABILITY_STATES,
  softwareOffload: CAPABILITY_STATES,
  ebpf: CAPABILITY_STATES,
  tcx: CAPABILITY_STATES,
  datapath: DATAPATH_MODES,
  offload: OFFLOAD_MODES,
  decommissioned: DECOMMISSIONED,
} as const;

/** The API's order without `sort`: by name, ascending (natural order). */
export const DEFAULT_SORT = { column: 'name', descending: false } as const;

const oneOf = <T extends readonly string[]>(values: T, v: string | null): T[number] | undefined =>
  v !== null && (values as readonly string[]).includes(v) ? (v as T[number]) : undefined;

/** The view a query string describes; what it cannot mean (an unknown status) is left out. */
export function viewOfSearch(search: URLSearchParams): FleetView {
  const filter: FleetFilter = {};
  for (const key of TEXT_KEYS) {
    const v = search.get(key)?.trim();
    if (v) filter[key] = v.slice(0, 128);
  }
  for (const [key, values] of Object.entries(CHOICES) as [keyof typeof CHOICES, readonly string[]][]) {
    const v = oneOf(values, search.get(key));
    if (v) (filter as Record<string, string>)[key] = v;
  }
  // `tag` is how links made before 0.2 spell it.
  const given = [...search.getAll('tags'), ...search.getAll('tag')];
  const tags = [...new Set(given.flatMap((t) => t.split(',')).map((t) => t.trim()))].filter(Boolean);
  if (tags.length) filter.tags = tags;
  const view: FleetView = { filter };
  const sort = search.get('sort');
  if (sort) {
    const descending = sort.startsWith('-');
    const column = oneOf(SORT_COLUMNS, descending ? sort.slice(1) : sort);
    if (column) view.sort = { column, descending };
  }
  const cursor = search.get('cursor');
  if (cursor) view.cursor = cursor;
  return view;
}

/** The query string of a view, in a stable order (the same view is the same link). */
export function searchOfView(view: FleetView): URLSearchParams {
  const search = new URLSearchParams();
  const f = view.filter;
  for (const key of [
    'q',
    'status',
    'soc',
    'model',
    'release',
    'placement',
    'revisionState',
    'drift',
    'applyResult',
    'hardwareOffload',
    'softwareOffload',
    'ebpf',
    'tcx',
    'datapath',
    'offload',
    'decommissioned',
  ] as const) {
    const v = f[key];
    if (v) search.set(key, v);
  }
  if (f.tags?.length) search.set('tags', f.tags.join(','));
  if (view.sort) search.set('sort', `${view.sort.descending ? '-' : ''}${view.sort.column}`);
  if (view.cursor) search.set('cursor', view.cursor);
  return search;
}

/** The API's query for the filter alone (counts, ids, bulk by filter). */
export function apiFilter(filter: FleetFilter): FleetFilter {
  const out: FleetFilter = {};
  for (const [k, v] of Object.entries(filter) as [keyof FleetFilter, FleetFilter[keyof FleetFilter]][]) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** The API's query for a page of the table. */
export function apiListQuery(view: FleetView, limit: number) {
  return {
    ...apiFilter(view.filter),
    limit,
    ...(view.sort ? { sort: `${view.sort.descending ? '-' : ''}${view.sort.column}` as const } : {}),
    ...(view.cursor ? { cursor: view.cursor } : {}),
  };
}

/** A filter change starts again at the first page (the cursor belongs to the old result). */
export function withFilter(view: FleetView, change: Partial<FleetFilter>): FleetView {
  const filter = { ...view.filter, ...change };
  for (const key of Object.keys(change) as (keyof FleetFilter)[]) {
    const v = filter[key];
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) delete filter[key];
  }
  return { filter, ...(view.sort ? { sort: view.sort } : {}) };
}

/** Clicking a column: ascending, then descending, then ascending again; back to the first page. */
export function withSortToggled(view: FleetView, column: SortColumn): FleetView {
  const current = view.sort ?? DEFAULT_SORT;
  const descending = current.column === column ? !current.descending : false;
  return { filter: view.filter, sort: { column, descending } };
}

/** How many filters are set (for "Clear filters (3)"). */
export function activeFilterCount(filter: FleetFilter): number {
  return Object.keys(apiFilter(filter)).length;
}
