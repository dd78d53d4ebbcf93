import { API_ENUMS } from '../../api/api-enums.generated.js';
import { unwrap } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { Link, useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { RolloutWizard } from './RolloutWizard.js';
import {
  describeSelector,
  EMPTY_SELECTOR_FIELDS,
  fieldsFromSelector,
  parseSelectorParam,
  type Selector,
} from './selector-fields.js';
import '../profiles/panels.css';
import './rollouts.css';

const STATES = API_ENUMS.RolloutState;

/**
 * Rollouts: newest first, filtered by state; `?new=1` opens the wizard, prefilled from
 * `&selector=<JSON>` (the Fleet page links here with its selection).
 */
export default function RolloutsPage(_props: PageProps) {
  const { api, can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const state = params.get('state');
  const wizard = params.get('new') === '1' && can('write');
  const linked = parseSelectorParam(params.get('selector'));
  const list = useApi(
    () =>
      unwrap(
        api.GET('/v1/rollouts', {
          params: {
            query: {
              limit: 100,
              ...(state && (STATES as readonly string[]).includes(state) ? { state: state as 'running' } : {}),
            },
          },
        }),
      ),
    [api, state],
  );
  const set = (patch: Record<string, string | null>, replace = true) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace });
  };

  return (
    <Page
      title="Rollouts"
      actions={
        can('write') && !wizard ? (
          <button type="button" className="wf-button wf-button--primary" onClick={() => set({ new: '1' }, false)}>
            New rollout
          </button>
        ) : null
      }
    >
      {wizard ? (
        <>
          {linked && !linked.ok ? (
            <p className="wf-error" role="alert">
              The link's selection was not used: {linked.message}
            </p>
          ) : null}
          <RolloutWizard
            initialSelector={linked?.ok ? fieldsFromSelector(linked.selector) : EMPTY_SELECTOR_FIELDS}
            onCancel={() => set({ new: null, selector: null }, false)}
          />
        </>
      ) : null}
      <div className="wf-inline-fields wf-rollouts__filters">
        <label>
          State{' '}
          <select value={state ?? ''} onChange={(e) => set({ state: e.target.value || null })}>
            <option value="">any</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="wf-button wf-button--small" onClick={list.reload}>
          Refresh
        </button>
      </div>
      {list.failure ? <ErrorNotice failure={list.failure} onRetry={list.reload} /> : null}
      {list.loading && !list.data ? <Loading what="Loading rollouts" /> : null}
      {list.data && list.data.items.length === 0 ? (
        <p className="wf-muted">No rollout{state ? ` ${state}` : ''} yet.</p>
      ) : null}
      {list.data && list.data.items.length > 0 ? (
        <div className="wf-table-wrap">
          <table className="wf-table" aria-label="Rollouts">
            <thead>
              <tr>
                <th scope="col">Rollout</th>
                <th scope="col">State</th>
                <th scope="col">Profile</th>
                <th scope="col">Routers</th>
                <th scope="col">Progress</th>
                <th scope="col">Applied</th>
                <th scope="col">Failed</th>
                <th scope="col">Started by</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((r) => (
                <tr key={r.id}>
                  <td>
                    <Link to={`/rollouts/${encodeURIComponent(r.id)}`}>{r.id.slice(0, 8)}</Link>
                  </td>
                  <td>
                    <span className={`wf-status wf-status--${r.state}`}>{r.state.replace('_', ' ')}</span>
                  </td>
                  <td>
                    {r.profile}@{r.revision}
                  </td>
                  <td>{describeSelector(r.selector as Selector)}</td>
                  <td>
                    {r.finished}/{r.total} · batch {Math.min(r.currentBatch + 1, r.batchCount)}/{r.batchCount}
                  </td>
                  <td>{r.counts.applied ?? 0}</td>
                  <td>{(r.counts.failed ?? 0) + (r.counts.rolled_back ?? 0)}</td>
                  <td>{r.createdBy}</td>
                  <td>{new Date(r.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Page>
  );
}
