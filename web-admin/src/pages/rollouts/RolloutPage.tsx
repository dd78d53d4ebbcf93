import { useCallback, useEffect, useRef, useState } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { batchesOf, TARGET_STATES, type TargetRow } from './rollout-progress.js';
import { describeSelector, type Selector } from './selector-fields.js';
import { StreamBadge } from './StreamBadge.js';
import '../profiles/panels.css';
import './rollouts.css';

type Rollout = ApiPaths['/v1/rollouts/{id}']['get']['responses'][200]['content']['application/json'];
type Action = 'pause' | 'resume' | 'cancel' | 'promote';
const TERMINAL = new Set(['completed', 'cancelled']);
const LABELS: Record<string, string> = { rolled_back: 'rolled back', awaiting_approval: 'awaiting approval' };
/** The batch of the targets a rollout left out from the start (the plan refused them). */
const LEFT_OUT_BATCH = -1;

/** Seconds from now until `iso`, ticking every second while there is one. */
function useSecondsUntil(iso: string | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!iso) return;
    // From now, not from when the page was opened.
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [iso]);
  return iso ? Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000)) : null;
}

/** One rollout, live over its event stream: batches, per-router state, pause, resume, promote, cancel. */
export default function RolloutPage({ params }: PageProps) {
  const id = params.id!;
  const { api, auth, can } = useSignedIn();
  const first = useApi(() => unwrap(api.GET('/v1/rollouts/{id}', { params: { path: { id } } })), [api, id]);
  const [live, setLive] = useState<Rollout | null>(null);
  const [targets, setTargets] = useState<TargetRow[]>([]);
  const [targetsFailure, setTargetsFailure] = useState<ApiFailure | null>(null);
  const [actionFailure, setActionFailure] = useState<ApiFailure | null>(null);
  const [acting, setActing] = useState(false);
  const [confirming, setConfirming] = useState<'cancel' | 'promote' | null>(null);
  const rollout = live ?? first.data ?? null;
  const finished = rollout ? TERMINAL.has(rollout.state) : false;

  const loadTargets = useCallback(async () => {
    const rows: TargetRow[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await unwrap(
          api.GET('/v1/rollouts/{id}/targets', {
            params: { path: { id }, query: { limit: 1000, ...(cursor ? { cursor } : {}) } },
          }),
        );
        rows.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor && rows.length < 10_000);
      setTargets(rows);
      setTargetsFailure(null);
    } catch (error) {
      setTargetsFailure(asFailure(error));
    }
  }, [api, id]);

  // Targets are re-read when progress moves (not on every event), at most once per second.
  const progressKey = rollout
    ? `${rollout.state}/${rollout.finished}/${rollout.currentBatch}/${JSON.stringify(rollout.counts)}`
    : '';
  const lastLoad = useRef(0);
  useEffect(() => {
    if (!progressKey) return;
    const wait = Math.max(0, 1000 - (Date.now() - lastLoad.current));
    const timer = setTimeout(() => {
      lastLoad.current = Date.now();
      void loadTargets();
    }, wait);
    return () => clearTimeout(timer);
  }, [progressKey, loadTargets]);

  const stream = useEventStream(
    first.data && !TERMINAL.has(first.data.state) ? `/v1/rollouts/${encodeURIComponent(id)}/events` : null,
    auth,
    (event) => {
      if (event.event !== 'progress') return;
      try {
        setLive(JSON.parse(event.data) as Rollout);
      } catch {
        /* a malformed event is skipped; the next one carries the whole state again */
      }
    },
  );

  const act = async (action: Action) => {
    setActing(true);
    setActionFailure(null);
    try {
      const path = `/v1/rollouts/{id}/${action}` as '/v1/rollouts/{id}/pause';
      setLive(await unwrap(api.POST(path, { params: { path: { id } } })));
    } catch (error) {
      setActionFailure(asFailure(error));
    } finally {
      setActing(false);
      setConfirming(null);
    }
  };

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
              <button type="button" className="wf-button" disabled={acting} onClick={() => void act('pause')}>
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
                onClick={() => void act('resume')}
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
      {first.failure ? <ErrorNotice failure={first.failure} onRetry={first.reload} /> : null}
      {actionFailure ? <ErrorNotice failure={actionFailure} /> : null}
      {!rollout && first.loading ? <Loading what="Loading the rollout" /> : null}
      {confirming === 'cancel' && rollout ? (
        <ConfirmDialog
          title={`Cancel rollout ${id.slice(0, 8)}?`}
          confirmLabel="Cancel rollout"
          dismissLabel="Keep it"
          danger
          busy={acting}
          onConfirm={() => void act('cancel')}
          onCancel={() => setConfirming(null)}
        >
          <p>
            Nothing more is sent. Routers not yet sent {rollout.profile}@{rollout.revision} keep what they run; routers
            it was sent to that did not apply it (waiting, failed, rolled back, offline) go back to the revision and
            assignment they had before. Routers that applied it keep it.
          </p>
        </ConfirmDialog>
      ) : null}
      {confirming === 'promote' && rollout ? (
        <ConfirmDialog
          title={`Promote rollout ${id.slice(0, 8)}?`}
          confirmLabel="Promote"
          busy={acting}
          onConfirm={() => void act('promote')}
          onCancel={() => setConfirming(null)}
        >
          <p>
            {BatchLabel(rollout.currentBatch)} is sent {rollout.profile}@{rollout.revision} now, and the rollout goes on
            batch by batch{strategy && strategy.soakSeconds > 0 ? `, soaking ${strategy.soakSeconds} s after each` : ''}
            .
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
              {rollout.profile}@{rollout.revision} to {describeSelector(rollout.selector as Selector)}
            </h2>
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
              {TARGET_STATES.map((s) => (
                <li key={s}>
                  <strong>{rollout.counts[s] ?? 0}</strong>
                  {LABELS[s] ?? s}
                </li>
              ))}
            </ul>
            <p className="wf-muted">
              Canary {rollout.strategy.canary}, batches of {rollout.strategy.batchSize}, pause above{' '}
              {Math.round(rollout.strategy.maxFailureRatio * 1000) / 10}% failed
              {rollout.strategy.soakSeconds > 0 ? `, soak ${rollout.strategy.soakSeconds} s` : ''}
              {rollout.strategy.promote === 'manual' ? ', promote by hand after the first batch' : ''}
              {rollout.leftOut > 0 ? ` · ${rollout.leftOut} left out (the plan refuses them)` : ''} · started by{' '}
              {rollout.createdBy}, {new Date(rollout.startAt).toLocaleString()}
              {rollout.finishedAt ? ` · finished ${new Date(rollout.finishedAt).toLocaleString()}` : ''}
            </p>
          </section>
          <section className="wf-panel" aria-labelledby="rollout-batches-title">
            <h2 id="rollout-batches-title">Batches</h2>
            <div className="wf-table-wrap">
              <table className="wf-table" aria-label="Batches">
                <thead>
                  <tr>
                    <th scope="col">Batch</th>
                    <th scope="col">Phase</th>
                    <th scope="col">Routers</th>
                    {TARGET_STATES.map((s) => (
                      <th scope="col" key={s}>
                        {LABELS[s] ?? s}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {batches.map((b) => (
                    <tr key={b.batch} aria-current={b.batch === rollout.currentBatch && !finished ? 'step' : undefined}>
                      <td>{b.label}</td>
                      <td>{b.phase}</td>
                      <td>{b.total}</td>
                      {TARGET_STATES.map((s) => (
                        <td key={s}>{b.counts[s]}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section className="wf-panel" aria-labelledby="rollout-routers-title">
            <h2 id="rollout-routers-title">Routers</h2>
            {targetsFailure ? <ErrorNotice failure={targetsFailure} onRetry={() => void loadTargets()} /> : null}
            <div className="wf-table-wrap">
              <table className="wf-table" aria-label="Routers of the rollout">
                <thead>
                  <tr>
                    <th scope="col">Router</th>
                    <th scope="col">Batch</th>
                    <th scope="col">State</th>
                    <th scope="col">Error</th>
                  </tr>
                </thead>
                <tbody>
                  {targets.map((t) => (
                    <tr key={t.routerId}>
                      <td>
                        <Link to={`/routers/${encodeURIComponent(t.routerId)}`}>{t.name}</Link>
                      </td>
                      <td>{t.batch === LEFT_OUT_BATCH ? 'left out' : (batches[t.batch]?.label ?? t.batch)}</td>
                      <td>
                        <span className={`wf-status wf-status--${t.state}`}>{LABELS[t.state] ?? t.state}</span>
                      </td>
                      <td className="wf-rollout__error">{t.error ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      ) : null}
    </Page>
  );
}
