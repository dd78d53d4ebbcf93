import { useEffect, useState } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { Link } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { spoken, TARGET_STATES, type TargetState } from './command-history.js';

type TargetPage = ApiPaths['/v1/commands/{id}/targets']['get']['responses'][200]['content']['application/json'];
type Target = TargetPage['items'][number];

/** A command's routers, paged by router id: each one's outcome, why, and the agent's output. */
export function CommandTargets({
  jobId,
  state,
  limit,
  reloadKey,
  onState,
}: {
  jobId: string;
  state: TargetState | undefined;
  limit: number;
  /** Changes when the job ends: the results are read again from the first page. */
  reloadKey: number;
  onState(next: TargetState | undefined): void;
}) {
  const { api } = useSignedIn();
  const [targets, setTargets] = useState<Target[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(true);

  const load = async (cursor: string | null) => {
    setLoading(true);
    try {
      const page = await unwrap(
        api.GET('/v1/commands/{id}/targets', {
          params: { path: { id: jobId }, query: { limit, ...(state ? { state } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      );
      setTargets((before) => (cursor ? [...before, ...page.items] : page.items));
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
  }, [api, jobId, state, limit, reloadKey]);

  return (
    <section className="wf-panel" aria-labelledby="command-targets-title">
      <h2 id="command-targets-title">Routers</h2>
      <div className="wf-inline-fields wf-commands__filters">
        <label>
          Outcome{' '}
          <select value={state ?? ''} onChange={(e) => onState((e.target.value || undefined) as TargetState)}>
            <option value="">any</option>
            {TARGET_STATES.map((s) => (
              <option key={s} value={s}>
                {spoken(s)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {failure ? <ErrorNotice failure={failure} onRetry={() => void load(null)} /> : null}
      {loading && targets.length === 0 ? <Loading what="Loading the routers' results" /> : null}
      {!loading && !failure && targets.length === 0 ? (
        <p className="wf-muted">No router{state ? ` ${spoken(state)}` : ''}.</p>
      ) : null}
      {targets.length > 0 ? (
        <div className="wf-table-wrap">
          <table className="wf-table wf-command-targets" aria-label="Per-router results">
            <thead>
              <tr>
                <th scope="col">Router</th>
                <th scope="col">Outcome</th>
                <th scope="col">Result</th>
                <th scope="col">Finished</th>
              </tr>
            </thead>
            <tbody>
              {targets.map((t) => (
                <tr key={t.routerId} data-router={t.name}>
                  <td className="wf-commands__wrap">
                    <Link to={`/routers/${encodeURIComponent(t.routerId)}`} title={t.routerId}>
                      {t.name}
                    </Link>
                  </td>
                  <td>
                    <span className={`wf-status wf-status--${t.state}`}>{spoken(t.state)}</span>
                  </td>
                  <td className="wf-command-targets__result">
                    {t.reason ? <p className="wf-command-targets__reason">{t.reason}</p> : null}
                    {t.output ? <pre className="wf-command-targets__output">{t.output}</pre> : null}
                    {!t.reason && !t.output ? <span className="wf-muted">—</span> : null}
                  </td>
                  <td>
                    {t.finishedAt ? (
                      <time dateTime={t.finishedAt}>{new Date(t.finishedAt).toLocaleString()}</time>
                    ) : (
                      <span className="wf-muted">{t.sentAt ? 'waiting for its answer' : 'not sent yet'}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {next ? (
        <button
          type="button"
          className="wf-button wf-commands__more"
          onClick={() => void load(next)}
          disabled={loading}
        >
          {loading ? 'Loading…' : 'More routers'}
        </button>
      ) : null}
    </section>
  );
}
