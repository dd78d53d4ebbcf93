import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiPages } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link, useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Page } from '../../components/Page.js';
import { OutcomeChips } from './OutcomeChips.js';
import { describeTargets, JOB_STATES, KINDS, oneOf, pageSizeOf, spoken } from './command-history.js';
import '../profiles/panels.css';
import './commands.css';

type JobPage = ApiPaths['/v1/commands']['get']['responses'][200]['content']['application/json'];
export type Command = JobPage['items'][number];

const COLUMNS: Column<Command>[] = [
  {
    id: 'sent',
    header: 'Sent',
    cell: (job) => (
      <Link to={`/commands/${encodeURIComponent(job.id)}`}>
        <time dateTime={job.createdAt}>{new Date(job.createdAt).toLocaleString()}</time>
      </Link>
    ),
  },
  { id: 'kind', header: 'Command', cell: (job) => spoken(job.kind) },
  { id: 'by', header: 'By', className: 'wf-commands__wrap', cell: (job) => job.createdBy },
  {
    id: 'state',
    header: 'State',
    cell: (job) => <span className={`wf-status wf-status--${job.state}`}>{job.state}</span>,
  },
  {
    id: 'routers',
    header: 'Routers',
    className: 'wf-commands__wrap',
    cell: (job) => describeTargets(job.selector, job.total),
  },
  { id: 'outcomes', header: 'Outcomes', cell: (job) => <OutcomeChips counts={job.counts} /> },
];

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
  const jobs = useApiPages([...queryKeys.commands, 'list', { kind, state, limit }], (cursor) =>
    unwrap(
      api.GET('/v1/commands', {
        params: {
          query: { limit, ...(kind ? { kind } : {}), ...(state ? { state } : {}), ...(cursor ? { cursor } : {}) },
        },
      }),
    ),
  );

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
        <button type="button" className="wf-button" onClick={jobs.retry}>
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
      <DataTable
        rows={jobs.items}
        columns={COLUMNS}
        rowKey={(job) => job.id}
        caption="Commands, newest first"
        className="wf-commands"
        rowProps={(job) => ({ 'data-job': job.id })}
        empty={<p className="wf-muted">No command{kind || state ? ' matches these filters' : ' has been sent yet'}.</p>}
        failure={jobs.failure}
        onRetry={jobs.retry}
        loading={jobs.loading}
        loadingWhat="Loading the command history"
        more={{ hasMore: jobs.hasMore, loading: jobs.loadingMore, onLoadMore: jobs.loadMore, label: 'Older commands' }}
      />
    </Page>
  );
}
