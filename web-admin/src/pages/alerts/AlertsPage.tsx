import { useId, useMemo } from 'react';
import { API_ENUMS, type ApiEnum } from '../../api/api-enums.generated.js';
import { unwrap } from '../../api/client.js';
import { useApiPages, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable } from '../../components/DataTable.js';
import { Page } from '../../components/Page.js';
import { alertColumns } from './alert-columns.js';
import { ALERT_VIEWS, alertViewOf, type AlertView } from './alert-format.js';
import { RulesSection } from './RulesSection.js';
import { SilencesSection } from './SilencesSection.js';
import '../profiles/panels.css';
import './alerts.css';

/** The page reads its lists again this often while it is open (alerts change with the fleet, not with a click). */
const REFRESH_MS = 10_000;
const SEVERITIES = API_ENUMS.AlertSeverity;

function emptyText(view: AlertView, filtered: boolean): string {
  if (filtered) return 'No alert matches these filters.';
  if (view === 'active') return 'Nothing is firing: every rule is quiet.';
  if (view === 'resolved') return 'No alert has resolved yet.';
  return 'No alert yet.';
}

/**
 * Alerts: the active ones by default (firing, acknowledged or silenced), the resolved ones, or
 * all, newest first, filtered by severity and rule; acknowledge or silence one; the silences
 * running and the rules. Everything is read again every ten seconds while the page is open.
 */
export default function AlertsPage(_props: PageProps) {
  const { api, can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const formId = useId();
  const view = alertViewOf(params.get('view'));
  const severityParam = params.get('severity');
  const severity = (SEVERITIES as readonly string[]).includes(severityParam ?? '')
    ? (severityParam as ApiEnum<'AlertSeverity'>)
    : undefined;
  const rule = params.get('rule') || undefined;
  const router = params.get('router') || undefined;
  const query = { status: view === 'all' ? undefined : view, severity, rule, router };
  const alerts = useApiPages(
    queryKeys.alertList(query),
    (cursor) =>
      unwrap(
        api.GET('/v1/alerts', {
          params: { query: { limit: 100, ...query, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    { keepPrevious: true, refetchEvery: REFRESH_MS },
  );
  const rules = useApiQuery(queryKeys.alertRules, () => unwrap(api.GET('/v1/alert-rules')), {
    refetchEvery: REFRESH_MS,
  });
  // A silence names routers by id: the alerts on screen name them.
  const routerNames = useMemo(
    () => new Map(alerts.items.filter((a) => a.subject.kind === 'router').map((a) => [a.subject.id, a.subject.name])),
    [alerts.items],
  );
  const columns = useMemo(
    () => alertColumns({ canWrite: can('write'), only: view === 'all' ? undefined : view }),
    [can, view],
  );
  const set = (key: string, value: string | null) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };

  return (
    <Page title="Alerts">
      <section className="wf-panel" aria-labelledby="alerts-title">
        <h2 id="alerts-title" className="wf-visually-hidden">
          Alerts
        </h2>
        <div className="wf-inline-fields wf-alerts__filters">
          <div className="wf-segmented" role="group" aria-label="Which alerts">
            {ALERT_VIEWS.map((v) => (
              <button
                key={v.id}
                type="button"
                className="wf-button wf-button--small"
                aria-pressed={view === v.id}
                onClick={() => set('view', v.id === 'active' ? null : v.id)}
              >
                {v.label}
              </button>
            ))}
          </div>
          <span className="wf-alerts__filter">
            <label htmlFor={`${formId}-severity`}>Severity</label>
            <select
              id={`${formId}-severity`}
              value={severity ?? ''}
              onChange={(e) => set('severity', e.target.value || null)}
            >
              <option value="">any</option>
              {SEVERITIES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </span>
          <span className="wf-alerts__filter">
            <label htmlFor={`${formId}-rule`}>Rule</label>
            <select id={`${formId}-rule`} value={rule ?? ''} onChange={(e) => set('rule', e.target.value || null)}>
              <option value="">any</option>
              {(rules.data?.items ?? []).map((r) => (
                <option key={r.name} value={r.name}>
                  {r.name}
                </option>
              ))}
              {rule && !rules.data?.items.some((r) => r.name === rule) ? <option value={rule}>{rule}</option> : null}
            </select>
          </span>
          {router ? (
            <span className="wf-alerts__router">
              Router {routerNames.get(router) ?? router}{' '}
              <button
                type="button"
                className="wf-button wf-button--small"
                aria-label="Show every router's alerts"
                onClick={() => set('router', null)}
              >
                ×
              </button>
            </span>
          ) : null}
          <button type="button" className="wf-button wf-button--small" onClick={alerts.retry}>
            Refresh
          </button>
        </div>
        <DataTable
          rows={alerts.items}
          columns={columns}
          rowKey={(a) => a.id}
          caption="Alerts"
          className="wf-alerts"
          rowProps={(a) => ({ 'data-status': a.status })}
          region="Alerts table"
          empty={<p className="wf-alerts__empty">{emptyText(view, Boolean(severity || rule || router))}</p>}
          failure={alerts.failure}
          onRetry={alerts.retry}
          loading={alerts.loading}
          loadingWhat="Loading alerts"
          more={{
            hasMore: alerts.hasMore,
            loading: alerts.loadingMore,
            onLoadMore: alerts.loadMore,
            label: 'Older alerts',
          }}
        />
      </section>
      <SilencesSection routerNames={routerNames} refreshMs={REFRESH_MS} />
      <RulesSection rules={rules} />
    </Page>
  );
}
