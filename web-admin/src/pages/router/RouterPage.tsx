import { useQueryClient } from '@tanstack/react-query';
import { unwrap } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { parseRouterChange } from '../../api/router-changes.js';
import { Link } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { AlertsPanel } from './AlertsPanel.js';
import { ApplyHistoryPanel } from './ApplyHistoryPanel.js';
import { CapabilitiesPanel } from './CapabilitiesPanel.js';
import { DriftPanel } from './DriftPanel.js';
import { FactsPanel } from './FactsPanel.js';
import { PlanPanel } from './PlanPanel.js';
import { RevisionsPanel } from './RevisionsPanel.js';
import { RouterActions } from './RouterActions.js';
import { TelemetryPanel } from './TelemetryPanel.js';
import './router.css';

/** The router's status and last contact are polled this often; the charts refresh on their own. */
const STATUS_REFRESH_MS = 15_000;

/** One router: its active alerts, facts, capabilities, plan, revisions, apply history, drift, live counters, actions. */
export default function RouterPage({ params }: PageProps) {
  const { api, auth } = useSignedIn();
  const client = useQueryClient();
  const id = params.id ?? '';
  // Every panel's query sits under queryKeys.router(id): an action invalidates them all at once.
  const router = useApiQuery(
    queryKeys.router(id),
    () => unwrap(api.GET('/v1/routers/{id}', { params: { path: { id } } })),
    { refetchEvery: STATUS_REFRESH_MS },
  );
  // The fleet's change feed names this router when its status, revisions, apply result or drift
  // change (made here or anywhere else): its queries, every panel's included, read again.
  useEventStream('/v1/routers/events', auth, (event) => {
    const change = parseRouterChange(event);
    if (change && (change.truncated || change.ids.includes(id)))
      void client.invalidateQueries({ queryKey: queryKeys.router(id) });
  });
  const data = router.data;
  return (
    <Page
      title={data ? data.name : 'Router'}
      actions={
        data ? (
          <RouterActions routerId={data.id} routerName={data.name} decommissioned={data.decommissionedAt !== null} />
        ) : null
      }
    >
      <p className="wf-crumbs">
        <Link to="/fleet">Fleet</Link> / {data?.name ?? id} ·{' '}
        <Link to={`/audit?${new URLSearchParams({ router: id }).toString()}`}>Audit history</Link>
      </p>
      {router.failure ? <ErrorNotice failure={router.failure} onRetry={router.retry} /> : null}
      {router.loading && !data ? <Loading what="Loading the router" /> : null}
      {data ? (
        <>
          <p className="wf-router-status">
            <span className={`wf-status wf-status--${data.status}`}>{data.status.replace('_', ' ')}</span>
            {data.decommissionedAt ? <span className="wf-status wf-status--failed">decommissioned</span> : null}
            <span>{data.soc ?? 'unknown SoC'}</span>
            <span>{data.model ?? 'unknown model'}</span>
            <span className="wf-muted">
              {data.lastSeenAt ? `seen ${new Date(data.lastSeenAt).toLocaleString()}` : 'never seen'}
            </span>
          </p>
          <AlertsPanel id={data.id} name={data.name} />
          <div className="wf-router-grid">
            <FactsPanel router={data} />
            <RevisionsPanel id={data.id} />
            <DriftPanel id={data.id} />
            <CapabilitiesPanel capabilities={data.capabilities} />
            <PlanPanel id={data.id} />
            <TelemetryPanel id={data.id} />
            <ApplyHistoryPanel id={data.id} />
          </div>
        </>
      ) : null}
    </Page>
  );
}
