import { useMemo } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { alertColumns } from '../alerts/alert-columns.js';
import '../alerts/alerts.css';

/** The router's alerts are read this often (an alert fires or clears on the controller's own clock). */
const ALERTS_REFRESH_MS = 10_000;

/**
 * The router's active alerts (firing, acknowledged or silenced), above its panels, with
 * acknowledge and silence for writers; nothing at all when it has none.
 */
export function AlertsPanel({ id, name }: { id: string; name: string }) {
  const { api, can } = useSignedIn();
  const query = { router: id, status: 'active' as const };
  const alerts = useApiQuery(
    queryKeys.alertList(query),
    () => unwrap(api.GET('/v1/alerts', { params: { query: { limit: 50, ...query } } })),
    { refetchEvery: ALERTS_REFRESH_MS },
  );
  const columns = useMemo(() => alertColumns({ canWrite: can('write'), router: true, only: 'active' }), [can]);
  if (alerts.failure) return <ErrorNotice failure={alerts.failure} onRetry={alerts.retry} />;
  const items = alerts.data?.items ?? [];
  if (items.length === 0) return null;
  const critical = items.some((a) => a.severity === 'critical' && a.status === 'firing');
  return (
    <section
      className={`wf-panel wf-router-alerts${critical ? ' wf-router-alerts--critical' : ''}`}
      aria-labelledby="router-alerts-title"
    >
      <header className="wf-panel__header">
        <h2 id="router-alerts-title">
          Active alerts ({items.length}
          {alerts.data?.nextCursor ? '+' : ''})
        </h2>
        <div className="wf-panel__actions">
          <Link to={`/alerts?${new URLSearchParams({ view: 'all', router: id }).toString()}`}>All its alerts</Link>
        </div>
      </header>
      <DataTable
        rows={items}
        columns={columns}
        rowKey={(a) => a.id}
        caption={`Active alerts of ${name}`}
        empty={null}
      />
    </section>
  );
}
