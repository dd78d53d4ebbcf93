import { API_ENUMS } from '../../api/api-enums.generated.js';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link, useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Page } from '../../components/Page.js';
import { releaseLabel } from '../firmware/firmware-format.js';
import { failedCount, rolloutSubject, succeededCount } from './rollout-subject.js';
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

type RolloutRow = ApiPaths['/v1/rollouts']['get']['responses'][200]['content']['application/json']['items'][number];

const COLUMNS: Column<RolloutRow>[] = [
  {
    id: 'id',
    header: 'Rollout',
    cell: (r) => <Link to={`/rollouts/${encodeURIComponent(r.id)}`}>{r.id.slice(0, 8)}</Link>,
  },
  {
    id: 'state',
    header: 'State',
    sortValue: (r) => r.state,
    cell: (r) => <span className={`wf-status wf-status--${r.state}`}>{r.state.replace('_', ' ')}</span>,
  },
  {
    id: 'carries',
    header: 'Carries',
    className: 'wf-rollouts__carries',
    sortValue: (r) => rolloutSubject(r),
    cell: (r) =>
      r.kind === 'firmware' && r.firmware ? (
        <>
          <span className="wf-badge">firmware</span> {releaseLabel(r.firmware.release, r.firmware.revision)}
          <div className="wf-muted">{r.firmware.fileName}</div>
        </>
      ) : (
        rolloutSubject(r)
      ),
  },
  { id: 'routers', header: 'Routers', cell: (r) => describeSelector(r.selector as Selector) },
  {
    id: 'progress',
    header: 'Progress',
    cell: (r) => `${r.finished}/${r.total} · batch ${Math.min(r.currentBatch + 1, r.batchCount)}/${r.batchCount}`,
  },
  {
    id: 'applied',
    header: 'Succeeded',
    sortValue: (r) => succeededCount(r.counts),
    cell: (r) => succeededCount(r.counts),
  },
  {
    id: 'failed',
    header: 'Failed',
    sortValue: (r) => failedCount(r.counts),
    cell: (r) =>
      (r.counts.unconfirmed ?? 0) > 0
        ? `${failedCount(r.counts)} (+${r.counts.unconfirmed} unconfirmed)`
        : failedCount(r.counts),
  },
  { id: 'by', header: 'Started by', sortValue: (r) => r.createdBy, cell: (r) => r.createdBy },
  {
    id: 'created',
    header: 'Created',
    sortValue: (r) => r.createdAt,
    cell: (r) => new Date(r.createdAt).toLocaleString(),
  },
];

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
  const list = useApiQuery([...queryKeys.rolloutList, state], () =>
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
            initialImage={params.get('image')}
            initialSelector={linked?.ok ? fieldsFromSelector(linked.selector) : EMPTY_SELECTOR_FIELDS}
            onCancel={() => set({ new: null, selector: null, image: null }, false)}
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
        <button type="button" className="wf-button wf-button--small" onClick={list.retry}>
          Refresh
        </button>
      </div>
      <DataTable
        rows={list.data?.items ?? []}
        columns={COLUMNS}
        rowKey={(r) => r.id}
        caption="Rollouts"
        empty={<p className="wf-muted">No rollout{state ? ` ${state}` : ''} yet.</p>}
        failure={list.failure}
        onRetry={list.retry}
        loading={list.loading}
        loadingWhat="Loading rollouts"
      />
    </Page>
  );
}
