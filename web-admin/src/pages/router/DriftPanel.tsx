import { unwrap } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { DiffView } from '../../components/DiffView.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { driftRows } from './drift-rows.js';
import { Panel } from './Panel.js';

/** The last drift report: what the plan expects against what the router had, as a diff. */
export function DriftPanel({ id }: { id: string }) {
  const { api } = useSignedIn();
  const drift = useApiQuery(queryKeys.routerPart(id, 'drift'), () =>
    unwrap(api.GET('/v1/routers/{id}/drift', { params: { path: { id } } })),
  );
  const report = drift.data?.report;
  return (
    <Panel title="Last drift report">
      {drift.failure ? <ErrorNotice failure={drift.failure} onRetry={drift.retry} /> : null}
      {drift.loading && !drift.data ? <Loading what="Loading the drift report" /> : null}
      {drift.data && !report ? <p className="wf-muted">No drift check yet.</p> : null}
      {report ? (
        <>
          <p data-testid="drift-summary">
            <span className={`wf-status wf-status--${report.differences.length ? 'drifted' : 'applied'}`}>
              {report.differences.length ? `${report.differences.length} differences` : 'no drift'}
            </span>{' '}
            {report.revision ? `from ${report.revision.profile}@${report.revision.revision}` : 'nothing applied'} ·{' '}
            <time dateTime={report.at}>{new Date(report.at).toLocaleString()}</time>
          </p>
          {report.differences.length ? (
            <DiffView
              rows={driftRows(report.differences)}
              caption="Drift: expected (removed) against found (added)"
              context={99}
            />
          ) : null}
        </>
      ) : null}
    </Panel>
  );
}
