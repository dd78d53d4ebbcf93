import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiPages } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { spoken, TARGET_STATES, type TargetState } from './command-history.js';

type TargetPage = ApiPaths['/v1/commands/{id}/targets']['get']['responses'][200]['content']['application/json'];
type Target = TargetPage['items'][number];

const COLUMNS: Column<Target>[] = [
  {
    id: 'router',
    header: 'Router',
    className: 'wf-commands__wrap',
    sortValue: (t) => t.name,
    cell: (t) => (
      <Link to={`/routers/${encodeURIComponent(t.routerId)}`} title={t.routerId}>
        {t.name}
      </Link>
    ),
  },
  {
    id: 'outcome',
    header: 'Outcome',
    sortValue: (t) => t.state,
    cell: (t) => <span className={`wf-status wf-status--${t.state}`}>{spoken(t.state)}</span>,
  },
  {
    id: 'result',
    header: 'Result',
    className: 'wf-command-targets__result',
    cell: (t) => (
      <>
        {t.reason ? <p className="wf-command-targets__reason">{t.reason}</p> : null}
        {t.output ? <pre className="wf-command-targets__output">{t.output}</pre> : null}
        {!t.reason && !t.output ? <span className="wf-muted">—</span> : null}
      </>
    ),
  },
  {
    id: 'finished',
    header: 'Finished',
    sortValue: (t) => t.finishedAt,
    cell: (t) =>
      t.finishedAt ? (
        <time dateTime={t.finishedAt}>{new Date(t.finishedAt).toLocaleString()}</time>
      ) : (
        <span className="wf-muted">{t.sentAt ? 'waiting for its answer' : 'not sent yet'}</span>
      ),
  },
];

/** A command's routers, paged by router id: each one's outcome, why, and the agent's output. */
export function CommandTargets({
  jobId,
  state,
  limit,
  onState,
}: {
  jobId: string;
  state: TargetState | undefined;
  limit: number;
  onState(next: TargetState | undefined): void;
}) {
  const { api } = useSignedIn();
  // Under the command's key: when the job ends (CommandPage invalidates it) the results read again.
  const targets = useApiPages(queryKeys.command(jobId, 'targets', { state, limit }), (cursor) =>
    unwrap(
      api.GET('/v1/commands/{id}/targets', {
        params: { path: { id: jobId }, query: { limit, ...(state ? { state } : {}), ...(cursor ? { cursor } : {}) } },
      }),
    ),
  );

  return (
    <section className="wf-panel" aria-labelledby="command-targets-title">
      <h2 id="command-targets-title">Routers</h2>
      <div className="wf-inline-fields wf-commands__filters">
        <label>
          Outcome{' '}
          <select value={state ?? ''} onChange={(e) => onState((e.target.value || undefined) as TargetState)}>
            <option value="">any</option>
            {TARGET_STATES.map((s) => (
              <option key={s} value={s}>
                {spoken(s)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <DataTable
        rows={targets.items}
        columns={COLUMNS}
        rowKey={(t) => t.routerId}
        caption="Per-router results"
        className="wf-command-targets"
        rowProps={(t) => ({ 'data-router': t.name })}
        empty={<p className="wf-muted">No router{state ? ` ${spoken(state)}` : ''}.</p>}
        failure={targets.failure}
        onRetry={targets.retry}
        loading={targets.loading}
        loadingWhat="Loading the routers' results"
        more={{
          hasMore: targets.hasMore,
          loading: targets.loadingMore,
          onLoadMore: targets.loadMore,
          label: 'More routers',
        }}
      />
    </section>
  );
}
