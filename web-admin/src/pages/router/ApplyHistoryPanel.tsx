import { unwrap } from '../../api/client.js';
import { useApiPages } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Panel } from './Panel.js';
import type { ApplyResultsPage } from './router-types.js';

type ApplyResult = ApplyResultsPage['items'][number];

const when = (iso: string) => new Date(iso).toLocaleString();

function seconds(r: ApplyResult): string {
  if (!r.finishedAt) return '—';
  return `${((Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000).toFixed(1)} s`;
}

/** What the evidence says in one line, when the agent wrote a summary or a trigger. */
function evidenceSummary(evidence: unknown): string | null {
  const e = (evidence ?? {}) as { summary?: unknown; trigger?: unknown };
  const parts = [
    typeof e.trigger === 'string' ? `trigger: ${e.trigger}` : null,
    typeof e.summary === 'string' ? e.summary : null,
  ];
  return parts.filter(Boolean).join(' · ') || null;
}

/** The router's apply results, newest first, each with the evidence the agent read back; more on demand. */
export function ApplyHistoryPanel({ id }: { id: string }) {
  const { api } = useSignedIn();
  // Under the router's key: an action on the router reads the loaded pages again.
  const history = useApiPages(queryKeys.routerPart(id, 'apply-results'), (cursor) =>
    unwrap(
      api.GET('/v1/routers/{id}/apply-results', {
        params: { path: { id }, query: { limit: 10, ...(cursor ? { cursor } : {}) } },
      }),
    ),
  );
  const { items, failure, loading } = history;

  return (
    <Panel title="Apply history" wide>
      {failure ? <ErrorNotice failure={failure} onRetry={history.retry} /> : null}
      {loading && items.length === 0 ? <Loading what="Loading apply results" /> : null}
      {!loading && !failure && items.length === 0 ? <p className="wf-muted">No apply result yet.</p> : null}
      {items.length > 0 ? (
        <ol className="wf-history">
          {items.map((r) => (
            <li key={r.id} className="wf-history__item">
              <div className="wf-history__head">
                <span className={`wf-status wf-status--${r.status}`}>{r.status.replace('_', ' ')}</span>
                <strong>{r.revision ? `${r.revision.profile}@${r.revision.revision}` : 'no revision'}</strong>
                <time dateTime={r.startedAt}>{when(r.startedAt)}</time>
                <span className="wf-muted">{seconds(r)}</span>
              </div>
              {r.error ? <p className="wf-history__error">{r.error}</p> : null}
              {evidenceSummary(r.evidence) ? <p className="wf-muted">{evidenceSummary(r.evidence)}</p> : null}
              {r.evidence ? (
                <details>
                  <summary>Evidence</summary>
                  <pre className="wf-pre" tabIndex={0}>
                    {JSON.stringify(r.evidence, null, 2)}
                  </pre>
                </details>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      {history.hasMore ? (
        <button type="button" className="wf-button" onClick={history.loadMore} disabled={history.loadingMore}>
          {history.loadingMore ? 'Loading…' : 'Older results'}
        </button>
      ) : null}
    </Panel>
  );
}
