import { Link } from '../../app/navigation.js';
import type { Column } from '../../components/DataTable.js';
import { transferLabel } from '../firmware/firmware-format.js';
import { statesShown, type BatchSummary, type TargetRow } from './rollout-progress.js';

/** The API's state names as the rollout pages say them. */
export const STATE_LABELS: Record<string, string> = {
  rolled_back: 'rolled back',
  awaiting_approval: 'awaiting approval',
};

/**
 * A mark beside the states that end a firmware upgrade, so they are told apart by more than
 * their colour (the word is there too; the mark is hidden from screen readers).
 */
const STATE_MARKS: Record<string, string> = { upgraded: '↑', unconfirmed: '?' };

/** A target's (or rollout's) state as a badge. */
export function StateBadge({ state }: { state: string }) {
  const mark = STATE_MARKS[state];
  return (
    <span className={`wf-status wf-status--${state}`}>
      {mark ? <span aria-hidden="true">{mark} </span> : null}
      {STATE_LABELS[state] ?? state}
    </span>
  );
}

/** The batch of the targets a rollout left out from the start (the plan refused them). */
const LEFT_OUT_BATCH = -1;

/** A rollout's batches: each one's phase and its routers by the states its kind reaches. */
export function batchColumns(kind: string, counts: Partial<Record<string, number>>): Column<BatchSummary>[] {
  return [
    { id: 'batch', header: 'Batch', cell: (b) => b.label },
    { id: 'phase', header: 'Phase', cell: (b) => b.phase },
    { id: 'routers', header: 'Routers', cell: (b) => b.total },
    ...statesShown(kind, counts).map((s) => ({
      id: s,
      header: STATE_LABELS[s] ?? s,
      cell: (b: BatchSummary) => b.counts[s],
    })),
  ];
}

const at = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '');

/** Where a router's upgrade is: its last step (bytes while transferring), what it said, when it flashed. */
function FirmwareStep({ target, imageBytes }: { target: TargetRow; imageBytes: number | null }) {
  if (!target.firmwareStep && !target.flashedAt) return <span className="wf-muted">—</span>;
  return (
    <div className="wf-step">
      {target.firmwareStep ? (
        <span className={`wf-step__name wf-step__name--${target.firmwareStep}`}>{target.firmwareStep}</span>
      ) : null}
      {target.firmwareStep === 'transferring' && target.bytesDone != null ? (
        <>
          {' '}
          <span className="wf-step__bytes">{transferLabel(target.bytesDone, imageBytes)}</span>
          {imageBytes ? (
            <progress
              className="wf-step__progress"
              max={imageBytes}
              value={Math.min(target.bytesDone, imageBytes)}
              aria-label={`${target.name}: bytes transferred`}
            />
          ) : null}
        </>
      ) : null}
      {target.stepDetail ? <div className="wf-step__detail">{target.stepDetail}</div> : null}
      {target.stepAt ? <div className="wf-muted wf-step__at">{at(target.stepAt)}</div> : null}
      {target.flashedAt ? <div className="wf-step__flashed">flashed {at(target.flashedAt)}</div> : null}
    </div>
  );
}

/** A rollout's routers: batch, state (and a firmware rollout's step) and error of each, sortable in the browser. */
export function routerColumns(
  batches: readonly BatchSummary[],
  firmware: { imageBytes: number | null } | null = null,
): Column<TargetRow>[] {
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
      cell: (t) => <StateBadge state={t.state} />,
    },
    ...(firmware
      ? [
          {
            id: 'step',
            header: 'Step',
            className: 'wf-rollout__step',
            sortValue: (t: TargetRow) => t.firmwareStep ?? '',
            cell: (t: TargetRow) => <FirmwareStep target={t} imageBytes={firmware.imageBytes} />,
          },
        ]
      : []),
    { id: 'error', header: 'Error', className: 'wf-rollout__error', cell: (t) => t.error ?? '' },
  ];
}
