import type { Loaded } from '../../api/queries.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { formatSeconds } from './alert-format.js';
import type { AlertRule } from './alert-types.js';
import { SeverityBadge } from './alert-columns.js';

const COLUMNS: Column<AlertRule>[] = [
  { id: 'name', header: 'Rule', rowHeader: true, sortValue: (r) => r.name, cell: (r) => r.name },
  { id: 'kind', header: 'Kind', sortValue: (r) => r.kind, cell: (r) => r.kind.replaceAll('_', ' ') },
  {
    id: 'severity',
    header: 'Severity',
    sortValue: (r) => r.severity,
    cell: (r) => <SeverityBadge severity={r.severity} />,
  },
  { id: 'for', header: 'For', sortValue: (r) => r.forSeconds, cell: (r) => formatSeconds(r.forSeconds) },
  { id: 'group', header: 'Group by', sortValue: (r) => r.groupBy ?? '', cell: (r) => r.groupBy ?? '—' },
  {
    id: 'enabled',
    header: 'Enabled',
    sortValue: (r) => (r.enabled ? 1 : 0),
    cell: (r) => (
      <span className={`wf-status wf-status--${r.enabled ? 'online' : 'offline'}`}>{r.enabled ? 'yes' : 'no'}</span>
    ),
  },
  { id: 'firing', header: 'Unresolved', sortValue: (r) => r.firing, cell: (r) => r.firing },
];

/** The alert rules, read-only: what is watched, after how long, grouped how, and how many alerts each has open. */
export function RulesSection({ rules }: { rules: Loaded<{ items: AlertRule[] }> }) {
  return (
    <section className="wf-panel" aria-labelledby="rules-title">
      <h2 id="rules-title">Alert rules</h2>
      <DataTable
        rows={rules.data?.items ?? []}
        columns={COLUMNS}
        rowKey={(r) => r.name}
        caption="Alert rules"
        empty={<p className="wf-muted">No alert rule.</p>}
        failure={rules.failure}
        onRetry={rules.retry}
        loading={rules.loading}
        loadingWhat="Loading alert rules"
      />
    </section>
  );
}
