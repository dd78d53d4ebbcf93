import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { unwrap } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link, useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { CommandTargets } from './CommandTargets.js';
import { OutcomeChips } from './OutcomeChips.js';
import { describeTargets, oneOf, pageSizeOf, spoken, TARGET_STATES } from './command-history.js';
import '../profiles/panels.css';
import './commands.css';

/** How often a running job's counts are read again. */
const POLL_MS = 2000;

/**
 * One command from the history: who sent it and when, its routers by outcome, and each
 * router's result with the agent's output, paged. A running job is followed over its event
 * stream, which writes its progress into the job's query (read again every POLL_MS instead
 * while the stream is not open); when it ends the results are read again.
 */
export default function CommandPage({ params }: PageProps) {
  const id = params.id!;
  const { api, auth } = useSignedIn();
  const [search, setSearch] = useSearchParams();
  const state = oneOf(TARGET_STATES, search.get('state'));
  const limit = pageSizeOf(search.get('limit'), 50, 500);
  const client = useQueryClient();
  const jobKey = [...queryKeys.command(id), 'job'];
  const streaming = useRef(false);
  const job = useApiQuery(jobKey, () => unwrap(api.GET('/v1/commands/{id}', { params: { path: { id } } })), {
    refetchEvery: (data) => (data?.state === 'running' && !streaming.current ? POLL_MS : false),
  });
  const running = job.data?.state === 'running';
  const stream = useEventStream(running ? `/v1/commands/${encodeURIComponent(id)}/events` : null, auth, (event) => {
    if (event.event !== 'progress') return;
    try {
      client.setQueryData(jobKey, JSON.parse(event.data) as typeof job.data);
    } catch {
      /* a malformed event is skipped; the next one carries the whole job again */
    }
  });
  useEffect(() => {
    streaming.current = stream.status === 'open';
  });
  // When it ends the per-router results are read again, with their last outcomes.
  const wasRunning = useRef(false);
  useEffect(() => {
    if (wasRunning.current && !running) void client.invalidateQueries({ queryKey: queryKeys.command(id, 'targets') });
    wasRunning.current = running;
  }, [running, client, id]);

  const kind = job.data ? spoken(job.data.kind) : '';
  const title = job.data ? `${kind.charAt(0).toUpperCase()}${kind.slice(1)} command` : 'Command';
  return (
    <Page
      title={title}
      actions={
        <Link to="/commands" className="wf-button">
          All commands
        </Link>
      }
    >
      {job.failure ? <ErrorNotice failure={job.failure} onRetry={job.retry} /> : null}
      {!job.data && job.loading ? <Loading what="Loading the command" /> : null}
      {job.data ? (
        <>
          <section className="wf-panel" aria-labelledby="command-summary-title">
            <h2 id="command-summary-title" className="wf-command__title">
              <span className={`wf-status wf-status--${job.data.state}`} data-testid="command-state">
                {job.data.state}
              </span>{' '}
              {spoken(job.data.kind)} to {describeTargets(job.data.selector, job.data.total)}
            </h2>
            <OutcomeChips counts={job.data.counts} />
            <dl className="wf-command__facts">
              <dt>Sent by</dt>
              <dd>{job.data.createdBy}</dd>
              <dt>Sent</dt>
              <dd>
                <time dateTime={job.data.createdAt}>{new Date(job.data.createdAt).toLocaleString()}</time>
              </dd>
              <dt>Finished</dt>
              <dd>
                {job.data.finishedAt ? (
                  <time dateTime={job.data.finishedAt}>{new Date(job.data.finishedAt).toLocaleString()}</time>
                ) : (
                  `${job.data.finished} of ${job.data.total} routers so far`
                )}
              </dd>
              {job.data.cancelledBy ? (
                <>
                  <dt>Cancelled by</dt>
                  <dd>{job.data.cancelledBy}</dd>
                </>
              ) : null}
              <dt>Limits</dt>
              <dd>
                answer within {job.data.timeoutSeconds} s, {job.data.maxInFlight} at once, offline routers until{' '}
                {new Date(job.data.deadline).toLocaleString()}
              </dd>
              <dt>Audit</dt>
              <dd>
                <Link to={`/audit?${new URLSearchParams({ command: id }).toString()}`}>events of this command</Link>
              </dd>
            </dl>
          </section>
          <CommandTargets
            jobId={id}
            state={state}
            limit={limit}
            onState={(next) => {
              const query = new URLSearchParams(search);
              if (next) query.set('state', next);
              else query.delete('state');
              setSearch(query);
            }}
          />
        </>
      ) : null}
    </Page>
  );
}
