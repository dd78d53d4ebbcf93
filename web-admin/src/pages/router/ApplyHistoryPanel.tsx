import { useEffect, useState } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
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
export function ApplyHistoryPanel({ id, version }: { id: string; version: number }) {
  const { api } = useSignedIn();
  const [items, setItems] = useState<ApplyResult[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(true);

  const load = async (cursor: string | null) => {
    setLoading(true);
    try {
      const page = await unwrap(
        api.GET('/v1/routers/{id}/apply-results', {
          params: { path: { id }, query: { limit: 10, ...(cursor ? { cursor } : {}) } },
        }),
      );
      setItems((before) => (cursor ? [...before, ...page.items] : page.items));
      setNext(page.nextCursor);
      setFailure(null);
    } catch (error) {
      setFailure(asFailure(error));
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    void load(null);
    // A new version (an action ran) starts the history over from the newest.
  }, [api, id, version]);

  return (
    <Panel title="Apply history" wide>
      {failure ? <ErrorNotice failure={failure} onRetry={() => void load(null)} /> : null}
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
      {next ? (
        <button type="button" className="wf-button" onClick={() => void load(next)} disabled={loading}>
          {loading ? 'Loading…' : 'Older results'}
        </button>
      ) : null}
    </Panel>
  );
}
