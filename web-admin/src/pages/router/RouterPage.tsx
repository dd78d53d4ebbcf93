import { useCallback, useEffect, useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { ApplyHistoryPanel } from './ApplyHistoryPanel.js';
import { CapabilitiesPanel } from './CapabilitiesPanel.js';
import { DriftPanel } from './DriftPanel.js';
import { FactsPanel } from './FactsPanel.js';
import { PlanPanel } from './PlanPanel.js';
import { RevisionsPanel } from './RevisionsPanel.js';
import { RouterActions } from './RouterActions.js';
import { TelemetryPanel } from './TelemetryPanel.js';
import './router.css';

/** The router's status and placement are polled this often; the charts refresh on their own. */
const STATUS_REFRESH_MS = 15_000;

/** One router: facts, capabilities, plan, revisions, apply history, drift, live counters, actions. */
export default function RouterPage({ params }: PageProps) {
  const { api } = useSignedIn();
  const id = params.id ?? '';
  // Bumped after an action, so every panel reads what the action changed.
  const [version, setVersion] = useState(0);
  const changed = useCallback(() => setVersion((n) => n + 1), []);
  const router = useApi(() => unwrap(api.GET('/v1/routers/{id}', { params: { path: { id } } })), [api, id, version]);
  const { reload } = router;
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, STATUS_REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const data = router.data;
  return (
    <Page
      title={data ? data.name : 'Router'}
      actions={
        data ? (
          <RouterActions
            routerId={data.id}
            routerName={data.name}
            decommissioned={data.decommissionedAt !== null}
            onChanged={changed}
          />
        ) : null
      }
    >
      <p className="wf-crumbs">
        <Link to="/fleet">Fleet</Link> / {data?.name ?? id} ·{' '}
        <Link to={`/audit?${new URLSearchParams({ router: id }).toString()}`}>Audit history</Link>
      </p>
      {router.failure ? <ErrorNotice failure={router.failure} onRetry={router.reload} /> : null}
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
          <div className="wf-router-grid">
            <FactsPanel router={data} />
            <RevisionsPanel id={data.id} version={version} />
            <DriftPanel id={data.id} version={version} />
            <CapabilitiesPanel capabilities={data.capabilities} />
            <PlanPanel id={data.id} version={version} />
            <TelemetryPanel id={data.id} />
            <ApplyHistoryPanel id={data.id} version={version} />
          </div>
        </>
      ) : null}
    </Page>
  );
}
