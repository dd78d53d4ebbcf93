import { unwrap } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSignedIn } from '../../app/session.js';
import { Link } from '../../app/navigation.js';
import { pathFor } from '../../app/route-match.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';

/** The fleet: the first page of routers (the full table, filters and bulk actions come here). */
export default function FleetPage() {
  const { api } = useSignedIn();
  const routers = useApi(() => unwrap(api.GET('/v1/routers', { params: { query: { limit: 100 } } })), [api]);
  return (
    <Page title="Fleet">
      {routers.failure ? <ErrorNotice failure={routers.failure} onRetry={routers.reload} /> : null}
      {routers.loading && !routers.data ? <Loading what="Loading routers" /> : null}
      {routers.data ? (
        <div className="wf-table-wrap">
          <table className="wf-table">
            <caption className="wf-visually-hidden">Routers</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">SoC</th>
                <th scope="col">Model</th>
                <th scope="col">OpenWrt</th>
                <th scope="col">Applied</th>
              </tr>
            </thead>
            <tbody>
              {routers.data.items.map((router) => (
                <tr key={router.id}>
                  <td>
                    <Link to={pathFor('/routers/:id', { id: router.id })}>{router.name}</Link>
                  </td>
                  <td>
                    <span className={`wf-status wf-status--${router.status}`}>{router.status}</span>
                  </td>
                  <td>{router.soc ?? '—'}</td>
                  <td>{router.model ?? '—'}</td>
                  <td>{router.openwrt?.version ?? '—'}</td>
                  <td>
                    {router.appliedRevision
                      ? `${router.appliedRevision.profile}@${router.appliedRevision.revision}`
                      : '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Page>
  );
}
