import { unwrap } from '../api/client.js';
import { useApiQuery } from '../api/queries.js';
import { queryKeys } from '../api/query-keys.js';
import { useSignedIn } from './session.js';

/** The badge is read this often, on every page. */
const SUMMARY_REFRESH_MS = 15_000;

/**
 * How many alerts fire (unresolved, neither acknowledged nor silenced), beside "Alerts" in the
 * navigation: red when one of them is critical, amber otherwise, nothing when none fires or the
 * summary cannot be read. Its words are in the link's name ("Alerts 3 firing, 1 critical").
 */
export function AlertsNavBadge() {
  const { api } = useSignedIn();
  const summary = useApiQuery(queryKeys.alertSummary, () => unwrap(api.GET('/v1/alerts/summary')), {
    refetchEvery: SUMMARY_REFRESH_MS,
  });
  const data = summary.data;
  if (!data || data.firing <= 0) return null;
  const critical = data.bySeverity.critical;
  return (
    <span
      className={`wf-nav__badge wf-nav__badge--${critical > 0 ? 'critical' : 'warning'}`}
      data-testid="alerts-badge"
    >
      {data.firing}
      <span className="wf-visually-hidden"> firing{critical > 0 ? `, ${critical} critical` : ''}</span>
    </span>
  );
}
