import { useCallback, useEffect, useRef, useState } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../app/navigation.js';
import type { PageProps } from '../../app/routes.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { batchesOf, TARGET_STATES, type TargetRow } from './rollout-progress.js';
import { describeSelector, type Selector } from './selector-fields.js';
import { StreamBadge } from './StreamBadge.js';
import '../profiles/panels.css';
import './rollouts.css';

type Rollout = ApiPaths['/v1/rollouts/{id}']['get']['responses'][200]['content']['application/json'];
const TERMINAL = new Set(['completed', 'aborted']);
const LABELS: Record<string, string> = { rolled_back: 'rolled back' };

/** One rollout, live over its event stream: batches, per-router state, pause, resume, abort. */
export default function RolloutPage({ params }: PageProps) {
  const id = params.id!;
  const { api, auth, can } = useSignedIn();
  const first = useApi(() => unwrap(api.GET('/v1/rollouts/{id}', { params: { path: { id } } })), [api, id]);
  const [live, setLive] = useState<Rollout | null>(null);
  const [targets, setTargets] = useState<TargetRow[]>([]);
  const [targetsFailure, setTargetsFailure] = useState<ApiFailure | null>(null);
  const [actionFailure, setActionFailure] = useState<ApiFailure | null>(null);
  const [acting, setActing] = useState(false);
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

  const act = async (action: 'pause' | 'resume' | 'abort') => {
    if (
      action === 'abort' &&
      !window.confirm(`Abort rollout ${id.slice(0, 8)}? Routers not yet sent the revision keep what they have.`)
    )
      return;
    setActing(true);
    setActionFailure(null);
    try {
      const path = `/v1/rollouts/{id}/${action}` as '/v1/rollouts/{id}/pause';
      setLive(await unwrap(api.POST(path, { params: { path: { id } } })));
    } catch (error) {
      setActionFailure(asFailure(error));
    } finally {
      setActing(false);
    }
  };

  const strategy = (rollout?.strategy ?? {}) as { canary?: number; batchSize?: number; maxFailureRatio?: number };
  const batches = rollout ? batchesOf(targets, rollout.batchCount, strategy.canary ?? 0) : [];

  return (
    <Page
      title={`Rollout ${id}`}
      actions={
        rollout && can('write') && !finished ? (
          <>
            {rollout.state === 'running' || rollout.state === 'scheduled' ? (
              <button type="button" className="wf-button" disabled={acting} onClick={() => void act('pause')}>
                Pause
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
              onClick={() => void act('abort')}
            >
              Abort
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
      {rollout ? (
        <>
          <section className="wf-panel" aria-labelledby="rollout-summary-title">
            <h2 id="rollout-summary-title">
              <span className={`wf-status wf-status--${rollout.state}`} data-testid="rollout-state">
                {rollout.state}
              </span>{' '}
              {rollout.profile}@{rollout.revision} to {describeSelector(rollout.selector as Selector)}
            </h2>
            {finished ? null : <StreamBadge state={stream} />}
            {rollout.pauseReason ? <p className="wf-notice">Paused: {rollout.pauseReason}</p> : null}
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
              Canary {strategy.canary ?? 0}, batches of {strategy.batchSize ?? '?'}, pause above{' '}
              {Math.round((strategy.maxFailureRatio ?? 0) * 1000) / 10}% failed · started by {rollout.createdBy},{' '}
              {new Date(rollout.startAt).toLocaleString()}
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
                      <td>{batches[t.batch]?.label ?? t.batch}</td>
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
