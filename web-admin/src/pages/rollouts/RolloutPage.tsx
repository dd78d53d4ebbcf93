import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { useApiMutation, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DataTable } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { describeWindow } from './firmware-fields.js';
import { batchColumns, routerColumns, StateBadge, STATE_LABELS as LABELS } from './rollout-columns.js';
import { batchesOf, statesShown, type TargetRow } from './rollout-progress.js';
import { rolloutSubject } from './rollout-subject.js';
import { describeSelector, type Selector } from './selector-fields.js';
import { formatBytes } from '../firmware/firmware-format.js';
import { StreamBadge } from './StreamBadge.js';
import '../profiles/panels.css';
import '../firmware/firmware.css';
import './rollouts.css';

type Rollout = ApiPaths['/v1/rollouts/{id}']['get']['responses'][200]['content']['application/json'];
type Action = 'pause' | 'resume' | 'cancel' | 'promote';
const TERMINAL = new Set(['completed', 'cancelled']);

/** Seconds from now until `iso`, ticking every second while there is one. */
function useSecondsUntil(iso: string | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!iso) return;
    // From now, not from when the page was opened.
    const first = setTimeout(() => setNow(Date.now()), 0);
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [iso]);
  return iso ? Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000)) : null;
}

/** One rollout, live over its event stream: batches, per-router state, pause, resume, promote, cancel. */
export default function RolloutPage({ params }: PageProps) {
  const id = params.id!;
  const { api, auth, can } = useSignedIn();
  const client = useQueryClient();
  // The rollout's state lives in the query cache: read once, then written by its event stream
  // and by the answers of the actions, so everything that shows it agrees.
  const first = useApiQuery(queryKeys.rollout(id), () =>
    unwrap(api.GET('/v1/rollouts/{id}', { params: { path: { id } } })),
  );
  const [confirming, setConfirming] = useState<'cancel' | 'promote' | null>(null);
  const rollout = first.data ?? null;
  const finished = rollout ? TERMINAL.has(rollout.state) : false;

  const targetsQuery = useApiQuery(queryKeys.rollout(id, 'targets'), async () => {
    const rows: TargetRow[] = [];
    let cursor: string | undefined;
    do {
      const page = await unwrap(
        api.GET('/v1/rollouts/{id}/targets', {
          params: { path: { id }, query: { limit: 1000, ...(cursor ? { cursor } : {}) } },
        }),
      );
      rows.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && rows.length < 10_000);
    return rows;
  });
  const targets = targetsQuery.data ?? [];

  // Targets are re-read when progress moves (not on every event), at most once per second.
  const progressKey = rollout
    ? `${rollout.state}/${rollout.finished}/${rollout.currentBatch}/${JSON.stringify(rollout.counts)}`
    : '';
  const lastKey = useRef('');
  const lastLoad = useRef(0);
  useEffect(() => {
    if (!progressKey) return;
    // The first progress is what the targets were just read for.
    if (!lastKey.current) {
      lastKey.current = progressKey;
      lastLoad.current = Date.now();
      return;
    }
    lastKey.current = progressKey;
    const wait = Math.max(0, 1000 - (Date.now() - lastLoad.current));
    const timer = setTimeout(() => {
      lastLoad.current = Date.now();
      void client.invalidateQueries({ queryKey: queryKeys.rollout(id, 'targets') });
    }, wait);
    return () => clearTimeout(timer);
  }, [progressKey, client, id]);

  const stream = useEventStream(
    first.data && !TERMINAL.has(first.data.state) ? `/v1/rollouts/${encodeURIComponent(id)}/events` : null,
    auth,
    (event) => {
      if (event.event !== 'progress') return;
      try {
        client.setQueryData(queryKeys.rollout(id), JSON.parse(event.data) as Rollout);
      } catch {
        /* a malformed event is skipped; the next one carries the whole state again */
      }
    },
  );

  const action = useApiMutation(
    (which: Action) =>
      unwrap(api.POST(`/v1/rollouts/{id}/${which}` as '/v1/rollouts/{id}/pause', { params: { path: { id } } })),
    {
      invalidates: [queryKeys.rolloutList],
      onSuccess: (next) => client.setQueryData(queryKeys.rollout(id), next),
    },
  );
  const acting = action.pending;
  const act = (which: Action) => action.run(which, { onSettled: () => setConfirming(null) });

  // A firmware rollout's image, for its size (the bytes a transfer has done are shown of it).
  const imageSha = rollout?.firmware?.image ?? null;
  const image = useApiQuery(
    queryKeys.firmwareImage(imageSha ?? '', 'size'),
    () =>
      unwrap(
        api.GET('/v1/firmware/images/{sha256}', {
          params: { path: { sha256: imageSha! }, query: { keepConfig: true, allowDowngrade: false } },
        }),
      ),
    { enabled: imageSha !== null },
  );
  const firmware = rollout?.kind === 'firmware' ? rollout.firmware : null;
  const subject = rollout ? rolloutSubject(rollout) : '';
  const strategy = rollout?.strategy;
  const batches = rollout ? batchesOf(targets, rollout.batchCount, strategy?.canary ?? 0) : [];
  const soakLeft = useSecondsUntil(rollout?.state === 'soaking' ? rollout.soakUntil : null);
  const batchLabel = (batch: number) => batches[batch]?.label ?? `batch ${batch}`;
  const BatchLabel = (batch: number) => batchLabel(batch).replace(/^./, (c) => c.toUpperCase());

  return (
    <Page
      title={`Rollout ${id}`}
      actions={
        rollout && can('write') && !finished ? (
          <>
            {rollout.state === 'running' || rollout.state === 'scheduled' || rollout.state === 'soaking' ? (
              <button type="button" className="wf-button" disabled={acting} onClick={() => act('pause')}>
                Pause
              </button>
            ) : null}
            {rollout.state === 'awaiting_approval' ? (
              <button
                type="button"
                className="wf-button wf-button--primary"
                disabled={acting}
                onClick={() => setConfirming('promote')}
              >
                Promote
              </button>
            ) : null}
            {rollout.state === 'paused' ? (
              <button
                type="button"
                className="wf-button wf-button--primary"
                disabled={acting}
                onClick={() => act('resume')}
              >
                Resume
              </button>
            ) : null}
            <button
              type="button"
              className="wf-button wf-button--danger"
              disabled={acting}
              onClick={() => setConfirming('cancel')}
            >
              Cancel rollout
            </button>
          </>
        ) : null
      }
    >
      <p>
        <Link to="/rollouts">All rollouts</Link>
      </p>
      {first.failure ? <ErrorNotice failure={first.failure} onRetry={first.retry} /> : null}
      {action.failure ? <ErrorNotice failure={action.failure} /> : null}
      {!rollout && first.loading ? <Loading what="Loading the rollout" /> : null}
      {confirming === 'cancel' && rollout ? (
        <ConfirmDialog
          title={`Cancel rollout ${id.slice(0, 8)}?`}
          confirmLabel="Cancel rollout"
          dismissLabel="Keep it"
          danger
          busy={acting}
          onConfirm={() => act('cancel')}
          onCancel={() => setConfirming(null)}
        >
          {firmware ? (
            <p>
              Nothing more is started. Routers whose transfer of {subject} has not finished stop it and keep the
              firmware they run. Routers already verifying, testing or flashing the image go on to the end (a flash is
              never interrupted); routers already upgraded keep the new firmware.
            </p>
          ) : (
            <p>
              Nothing more is sent. Routers not yet sent {subject} keep what they run; routers it was sent to that did
              not apply it (waiting, failed, rolled back, offline) go back to the revision and assignment they had
              before. Routers that applied it keep it.
            </p>
          )}
        </ConfirmDialog>
      ) : null}
      {confirming === 'promote' && rollout ? (
        <ConfirmDialog
          title={`Promote rollout ${id.slice(0, 8)}?`}
          confirmLabel="Promote"
          busy={acting}
          onConfirm={() => act('promote')}
          onCancel={() => setConfirming(null)}
        >
          <p>
            {BatchLabel(rollout.currentBatch)} is sent {subject} now, and the rollout goes on batch by batch
            {strategy && strategy.soakSeconds > 0 ? `, soaking ${strategy.soakSeconds} s after each` : ''}.
          </p>
        </ConfirmDialog>
      ) : null}
      {rollout ? (
        <>
          <section className="wf-panel" aria-labelledby="rollout-summary-title">
            <h2 id="rollout-summary-title">
              <span className={`wf-status wf-status--${rollout.state}`} data-testid="rollout-state">
                {LABELS[rollout.state] ?? rollout.state}
              </span>{' '}
              {subject} to {describeSelector(rollout.selector as Selector)}
            </h2>
            {firmware ? (
              <dl className="wf-kv wf-rollout__firmware" aria-label="Firmware image">
                <dt>Kind</dt>
                <dd>firmware upgrade</dd>
                <dt>Image</dt>
                <dd>
                  {firmware.fileName}
                  {firmware.target ? ` · ${firmware.target}` : ''}
                  {image.data ? ` · ${formatBytes(image.data.sizeBytes)}` : ''}
                  {firmware.image ? (
                    <>
                      {' '}
                      <code className="wf-sha" title={firmware.image}>
                        {firmware.image.slice(0, 12)}
                      </code>
                    </>
                  ) : (
                    ' (removed since)'
                  )}
                </dd>
                <dt>Configuration</dt>
                <dd>
                  {firmware.options.keepConfig
                    ? 'kept'
                    : 'reset (sysupgrade -n): the agent and its credentials must be restored'}
                  {firmware.options.allowDowngrade ? ' · downgrade allowed' : ''}
                </dd>
                <dt>Window</dt>
                <dd>{firmware.options.window ? describeWindow(firmware.options.window) : 'any time'}</dd>
              </dl>
            ) : null}
            {finished ? null : <StreamBadge state={stream} />}
            {rollout.state === 'paused' && rollout.pauseReason ? (
              <p className="wf-notice wf-notice--warn">Paused: {rollout.pauseReason}</p>
            ) : null}
            {rollout.state === 'soaking' ? (
              <p className="wf-notice" data-testid="soak-notice">
                Soaking after {batchLabel(rollout.currentBatch)}: {soakLeft ?? '?'} s left, then the health gates (no
                drift, no failed apply, telemetry counters moving) decide whether it goes on.
              </p>
            ) : null}
            {rollout.state === 'awaiting_approval' ? (
              <p className="wf-notice">
                The first batch passed its health gates. {BatchLabel(rollout.currentBatch)} waits for a promote.
              </p>
            ) : null}
            <ul className="wf-counts" aria-label="Routers by state">
              <li>
                <strong>{rollout.finished}</strong>/{rollout.total} finished
              </li>
              {statesShown(rollout.kind, rollout.counts).map((s) => (
                <li key={s} className={`wf-counts__${s}`}>
                  <strong>{rollout.counts[s] ?? 0}</strong>
                  <StateBadge state={s} />
                </li>
              ))}
            </ul>
            <p className="wf-muted">
              Canary {rollout.strategy.canary}, batches of {rollout.strategy.batchSize}, pause above{' '}
              {Math.round(rollout.strategy.maxFailureRatio * 1000) / 10}% failed
              {rollout.strategy.soakSeconds > 0 ? `, soak ${rollout.strategy.soakSeconds} s` : ''}
              {rollout.strategy.promote === 'manual' ? ', promote by hand after the first batch' : ''}
              {rollout.leftOut > 0
                ? ` · ${rollout.leftOut} left out (${firmware ? 'the image does not fit them' : 'the plan refuses them'})`
                : ''}{' '}
              · started by {rollout.createdBy}, {new Date(rollout.startAt).toLocaleString()}
              {rollout.finishedAt ? ` · finished ${new Date(rollout.finishedAt).toLocaleString()}` : ''}
            </p>
          </section>
          <section className="wf-panel" aria-labelledby="rollout-batches-title">
            <h2 id="rollout-batches-title">Batches</h2>
            <DataTable
              rows={batches}
              columns={batchColumns(rollout.kind, rollout.counts)}
              rowKey={(b) => String(b.batch)}
              caption="Batches"
              rowProps={(b) => ({ 'aria-current': b.batch === rollout.currentBatch && !finished ? 'step' : undefined })}
              empty={<p className="wf-muted">No batch yet.</p>}
            />
          </section>
          <section className="wf-panel" aria-labelledby="rollout-routers-title">
            <h2 id="rollout-routers-title">Routers</h2>
            <DataTable
              rows={targets}
              columns={routerColumns(batches, firmware ? { imageBytes: image.data?.sizeBytes ?? null } : null)}
              rowKey={(t) => t.routerId}
              caption="Routers of the rollout"
              empty={<p className="wf-muted">No router yet.</p>}
              failure={targetsQuery.failure}
              onRetry={targetsQuery.retry}
              loading={targetsQuery.loading}
              loadingWhat="Loading the rollout's routers"
            />
          </section>
        </>
      ) : null}
    </Page>
  );
}
