import { useEffect, useState } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { Link, useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { OutcomeChips } from './OutcomeChips.js';
import { describeTargets, JOB_STATES, KINDS, oneOf, pageSizeOf, spoken } from './command-history.js';
import '../profiles/panels.css';
import './commands.css';

type JobPage = ApiPaths['/v1/commands']['get']['responses'][200]['content']['application/json'];
export type Command = JobPage['items'][number];

/**
 * The command history, newest first: every command with who sent it, when, and its
 * routers by outcome; one opens to its per-router results. Filters and page size in the URL.
 */
export default function CommandsPage(_props: PageProps) {
  const { api } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const kind = oneOf(KINDS, params.get('kind'));
  const state = oneOf(JOB_STATES, params.get('state'));
  const limit = pageSizeOf(params.get('limit'), 20, 200);
  const [jobs, setJobs] = useState<Command[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);

  const load = async (cursor: string | null) => {
    setLoading(true);
    try {
      const page = await unwrap(
        api.GET('/v1/commands', {
          params: {
            query: { limit, ...(kind ? { kind } : {}), ...(state ? { state } : {}), ...(cursor ? { cursor } : {}) },
          },
        }),
      );
      setJobs((before) => (cursor ? [...before, ...page.items] : page.items));
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
    // A new filter starts again from the newest job.
  }, [api, kind, state, limit, tick]);

  const set = (key: string, value: string) => {
    const query = new URLSearchParams(params);
    if (value) query.set(key, value);
    else query.delete(key);
    setParams(query);
  };

  return (
    <Page
      title="Commands"
      actions={
        <button type="button" className="wf-button" onClick={() => setTick((n) => n + 1)}>
          Refresh
        </button>
      }
    >
      <div className="wf-inline-fields wf-commands__filters" role="group" aria-label="Command filters">
        <label>
          Kind{' '}
          <select value={kind ?? ''} onChange={(e) => set('kind', e.target.value)}>
            <option value="">any</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {spoken(k)}
              </option>
            ))}
          </select>
        </label>
        <label>
          State{' '}
          <select value={state ?? ''} onChange={(e) => set('state', e.target.value)}>
            <option value="">any</option>
            {JOB_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      {failure ? <ErrorNotice failure={failure} onRetry={() => setTick((n) => n + 1)} /> : null}
      {loading && jobs.length === 0 ? <Loading what="Loading the command history" /> : null}
      {!loading && !failure && jobs.length === 0 ? (
        <p className="wf-muted">No command{kind || state ? ' matches these filters' : ' has been sent yet'}.</p>
      ) : null}
      {jobs.length > 0 ? (
        <div className="wf-table-wrap">
          <table className="wf-table wf-commands" aria-label="Commands, newest first">
            <thead>
              <tr>
                <th scope="col">Sent</th>
                <th scope="col">Command</th>
                <th scope="col">By</th>
                <th scope="col">State</th>
                <th scope="col">Routers</th>
                <th scope="col">Outcomes</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => (
                <tr key={job.id} data-job={job.id}>
                  <td>
                    <Link to={`/commands/${encodeURIComponent(job.id)}`}>
                      <time dateTime={job.createdAt}>{new Date(job.createdAt).toLocaleString()}</time>
                    </Link>
                  </td>
                  <td>{spoken(job.kind)}</td>
                  <td className="wf-commands__wrap">{job.createdBy}</td>
                  <td>
                    <span className={`wf-status wf-status--${job.state}`}>{job.state}</span>
                  </td>
                  <td className="wf-commands__wrap">{describeTargets(job.selector, job.total)}</td>
                  <td>
                    <OutcomeChips counts={job.counts} />
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
          {loading ? 'Loading…' : 'Older commands'}
        </button>
      ) : null}
    </Page>
  );
}
