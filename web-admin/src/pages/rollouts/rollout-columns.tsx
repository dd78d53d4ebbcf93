import { Link } from '../../app/navigation.js';
import type { Column } from '../../components/DataTable.js';
import { TARGET_STATES, type BatchSummary, type TargetRow } from './rollout-progress.js';

/** The API's state names as the rollout pages say them. */
export const STATE_LABELS: Record<string, string> = {
  rolled_back: 'rolled back',
  awaiting_approval: 'awaiting approval',
};

/** The batch of the targets a rollout left out from the start (the plan refused them). */
const LEFT_OUT_BATCH = -1;

/** A rollout's batches: each one's phase and its routers by state. */
export const batchColumns: Column<BatchSummary>[] = [
  { id: 'batch', header: 'Batch', cell: (b) => b.label },
  { id: 'phase', header: 'Phase', cell: (b) => b.phase },
  { id: 'routers', header: 'Routers', cell: (b) => b.total },
  ...TARGET_STATES.map((s) => ({ id: s, header: STATE_LABELS[s] ?? s, cell: (b: BatchSummary) => b.counts[s] })),
];

/** A rollout's routers: batch, state and error of each, sortable in the browser. */
export function routerColumns(batches: readonly BatchSummary[]): Column<TargetRow>[] {
  return [
    {
      id: 'router',
      header: 'Router',
      sortValue: (t) => t.name,
      cell: (t) => <Link to={`/routers/${encodeURIComponent(t.routerId)}`}>{t.name}</Link>,
    },
    {
      id: 'batch',
      header: 'Batch',
      sortValue: (t) => t.batch,
      cell: (t) => (t.batch === LEFT_OUT_BATCH ? 'left out' : (batches[t.batch]?.label ?? t.batch)),
    },
    {
      id: 'state',
      header: 'State',
      sortValue: (t) => t.state,
      cell: (t) => <span className={`wf-status wf-status--${t.state}`}>{STATE_LABELS[t.state] ?? t.state}</span>,
    },
    { id: 'error', header: 'Error', className: 'wf-rollout__error', cell: (t) => t.error ?? '' },
  ];
}
