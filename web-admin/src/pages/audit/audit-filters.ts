/**
 * The audit page's filters, as they travel: in the page's query string (so a filtered
 * timeline is a link), to GET /v1/audit and to the export. Pure, unit-tested in
 * test/web-admin/logic/audit-filters.unit.test.ts.
 */

/** The filters the page offers, in the order of its form; each is a query parameter of /v1/audit. */
export const AUDIT_FILTER_KEYS = ['actor', 'action', 'router', 'profile', 'rollout', 'command', 'from', 'to'] as const;
export type AuditFilterKey = (typeof AUDIT_FILTER_KEYS)[number];
export type AuditFilters = Partial<Record<AuditFilterKey, string>>;

/** What the API bounds each text filter to (server/routes/v1/audit/index.ts). */
const MAX_LENGTH: Record<AuditFilterKey, number> = {
  actor: 200,
  action: 100,
  router: 64,
  profile: 64,
  rollout: 64,
  command: 64,
  from: 40,
  to: 40,
};

/** The filters a query string carries: trimmed, empty ones dropped, unknown parameters ignored. */
export function filtersFromSearch(search: URLSearchParams): AuditFilters {
  const filters: AuditFilters = {};
  for (const key of AUDIT_FILTER_KEYS) {
    const value = search.get(key)?.trim();
    if (value) filters[key] = value;
  }
  return filters;
}

/** The query string of a filtered timeline (keys in form order, so equal filters give equal links). */
export function searchOfFilters(filters: AuditFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const key of AUDIT_FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (value) search.set(key, value);
  }
  return search;
}

/** An instant as the API takes it, or null when the text is not one (from a datetime-local input or a link). */
export function instantOf(text: string): string | null {
  // datetime-local gives "2026-03-01T10:00" (local time); a link may carry a full ISO instant.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** What is wrong with the filters, per field, in words; empty when the API will take them. */
export function filterProblems(filters: AuditFilters): Partial<Record<AuditFilterKey, string>> {
  const problems: Partial<Record<AuditFilterKey, string>> = {};
  for (const key of AUDIT_FILTER_KEYS) {
    const value = filters[key];
    if (value && value.length > MAX_LENGTH[key]) problems[key] = `at most ${MAX_LENGTH[key]} characters`;
  }
  for (const key of ['from', 'to'] as const) {
    const value = filters[key];
    if (value && !problems[key] && instantOf(value) === null) problems[key] = 'not a date and time';
  }
  const from = filters.from ? instantOf(filters.from) : null;
  const to = filters.to ? instantOf(filters.to) : null;
  if (from && to && from >= to) problems.to = 'must be after "from"';
  return problems;
}

/** The filters as GET /v1/audit and /v1/audit/export take them (times as ISO instants); null while one is invalid. */
export function apiQueryOf(filters: AuditFilters): Record<string, string> | null {
  if (Object.keys(filterProblems(filters)).length > 0) return null;
  const query: Record<string, string> = {};
  for (const key of AUDIT_FILTER_KEYS) {
    const value = filters[key];
    if (!value) continue;
    query[key] = key === 'from' || key === 'to' ? instantOf(value)! : value;
  }
  return query;
}

/** The export of exactly the events the timeline shows (JSON lines), or null while a filter is invalid. */
export function exportPathOf(filters: AuditFilters): string | null {
  const query = apiQueryOf(filters);
  if (!query) return null;
  const search = new URLSearchParams(query).toString();
  return `/v1/audit/export${search ? `?${search}` : ''}`;
}

/** The file name an export is saved as: the filters that made it, so two exports do not overwrite each other. */
export function exportFileName(filters: AuditFilters, now: Date): string {
  const parts = AUDIT_FILTER_KEYS.filter((k) => k !== 'from' && k !== 'to' && filters[k]).map(
    (k) => `${k}-${filters[k]!.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40)}`,
  );
  const stamp = now
    .toISOString()
    .replace(/[:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return ['wrtfleet-audit', ...parts, stamp].join('_') + '.jsonl';
}

/** The value a datetime-local input shows for a filter's time (local, minutes), or the text as it is. */
export function localInputValue(text: string | undefined): string {
  if (!text) return '';
  const iso = instantOf(text);
  if (!iso) return text;
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
