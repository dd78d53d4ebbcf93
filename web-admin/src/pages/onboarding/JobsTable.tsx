import { useQueries, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { useApiMutation } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { retryFields, type OnboardingFields, type StoredOnboarding } from './onboarding-form.js';

export interface StartedJob {
  jobId: string;
  /** Unknown for a job opened from a link until it is read (its input names the host). */
  host: string | null;
  /** Where the router came from: "one router" or the inventory row; null when opened from a link. */
  row: string | null;
}

interface JobProgress {
  host?: string;
  state: string;
  step: string | null;
  percent: number;
  message: string | null;
  error?: string | null;
  routerId?: string | null;
  /** What the job was asked (no secret) and what it found: read with the job, for a retry. */
  input?: StoredOnboarding;
  result?: { hostKeyFingerprint?: unknown } | null;
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);
/** Browsers keep about six connections per origin over HTTP/1.1: only this many jobs stream at once, the rest poll. */
const STREAMED = 3;
const POLL_MS = 1500;
const QUEUED: JobProgress = { state: 'queued', step: null, percent: 0, message: 'queued' };

type Job = ApiPaths['/v1/jobs/{id}']['get']['responses'][200]['content']['application/json'];

const jobKey = (id: string) => [...queryKeys.onboarding, 'job', id] as const;

/** What GET /v1/jobs/{id} says of an onboarding job, as a row shows it. */
function progressOf(j: Job): JobProgress {
  return {
    host: ((j.input ?? {}) as { host?: string }).host,
    state: j.state,
    step: j.step,
    percent: j.percent,
    message: j.message,
    error: j.error,
    routerId: ((j.result ?? {}) as { routerId?: string }).routerId ?? null,
    input: (j.input ?? {}) as StoredOnboarding,
    result: (j.result ?? null) as { hostKeyFingerprint?: unknown } | null,
  };
}

/**
 * Onboarding jobs with their live progress, each with a cancel while it runs and a retry once it
 * failed. Each job's progress is a query: read once, then written by its event stream (the first
 * few unfinished jobs) or read again every POLL_MS (the rest) until it ends.
 */
export function JobsTable({
  jobs,
  onRetry,
}: {
  jobs: readonly StartedJob[];
  /** Opens the form for a new job on the same target; absent for a caller who may not onboard. */
  onRetry?: (jobId: string, fields: OnboardingFields) => void;
}) {
  const { api, can } = useSignedIn();
  const client = useQueryClient();
  const read = (id: string) => unwrap(api.GET('/v1/jobs/{id}', { params: { path: { id } } })).then(progressOf);
  const isOpen = (p: JobProgress | undefined) => !TERMINAL.has((p ?? QUEUED).state);
  const progress = useQueries({
    queries: jobs.map((j) => ({
      queryKey: jobKey(j.jobId),
      queryFn: () => read(j.jobId),
      placeholderData: QUEUED,
    })),
  }).map((q) => q.data ?? QUEUED);
  const open = jobs.filter((_, i) => isOpen(progress[i]));
  const streamed = new Set(open.slice(0, STREAMED).map((j) => j.jobId));
  const polled = open.filter((j) => !streamed.has(j.jobId)).map((j) => j.jobId);
  usePolling(polled, (id) => void client.invalidateQueries({ queryKey: jobKey(id) }));

  const [cancelling, setCancelling] = useState<string | null>(null);
  const cancel = useApiMutation(
    async (id: string) => {
      await unwrap(api.POST('/v1/jobs/{id}/cancel', { params: { path: { id } } }));
      return id;
    },
    { onSuccess: (id) => void client.invalidateQueries({ queryKey: jobKey(id) }) },
  );
  const rows = jobs.map((job, i) => ({ job, progress: progress[i] ?? QUEUED }));
  if (jobs.length === 0) return null;
  const columns: Column<Row>[] = [
    {
      id: 'router',
      header: 'Router',
      cell: ({ job, progress: p }) => {
        const host = hostOf(job, p);
        return p.routerId ? <Link to={`/routers/${encodeURIComponent(p.routerId)}`}>{host}</Link> : host;
      },
    },
    { id: 'from', header: 'From', cell: ({ job }) => job.row ?? '' },
    {
      id: 'state',
      header: 'State',
      cell: ({ progress: p }) => <span className={`wf-status wf-status--${p.state}`}>{p.state}</span>,
    },
    {
      id: 'progress',
      header: 'Progress',
      cell: ({ job, progress: p }) => (
        <>
          <progress max={100} value={p.percent} aria-label={`${hostOf(job, p)} progress`}>
            {p.percent}%
          </progress>{' '}
          {p.percent}%
        </>
      ),
    },
    {
      id: 'step',
      header: 'Step',
      cell: ({ progress: p }) => (stopped(p) && p.step ? `stopped at ${p.step}` : (p.step ?? '')),
    },
    {
      id: 'message',
      header: 'Message',
      cell: ({ job, progress: p }) => (
        <span className={`wf-job__message${p.state === 'failed' ? ' wf-job__message--failed' : ''}`}>
          {p.error ?? p.message ?? ''}
          {cancel.failure && cancelling === job.jobId ? (
            <span className="wf-field__error"> {cancel.failure.message}</span>
          ) : null}
        </span>
      ),
    },
    {
      id: 'actions',
      header: <span className="wf-visually-hidden">Actions</span>,
      cell: ({ job, progress: p }) => (
        <>
          {can('write') && isOpen(p) ? (
            <button
              type="button"
              className="wf-button wf-button--small"
              onClick={() => {
                setCancelling(job.jobId);
                cancel.run(job.jobId);
              }}
            >
              Cancel
            </button>
          ) : null}
          {onRetry && stopped(p) && p.input ? (
            <button
              type="button"
              className="wf-button wf-button--small"
              aria-label={`Retry ${hostOf(job, p)}`}
              onClick={() => onRetry(job.jobId, retryFields(p.input!, p.result ?? null))}
            >
              Retry
            </button>
          ) : null}
        </>
      ),
    },
  ];
  return (
    <section className="wf-panel" aria-labelledby="jobs-title">
      <h2 id="jobs-title">Onboarding jobs</h2>
      <p className="wf-muted" role="status">
        {jobs.length - open.length} of {jobs.length} finished
      </p>
      {[...streamed].map((id) => (
        <JobStream key={id} jobId={id} />
      ))}
      <DataTable
        rows={rows}
        columns={columns}
        rowKey={(r) => r.job.jobId}
        caption="Onboarding jobs"
        rowProps={(r) => ({ 'data-job': r.job.jobId, 'data-state': r.progress.state })}
        empty={null}
      />
    </section>
  );
}

interface Row {
  job: StartedJob;
  progress: JobProgress;
}

const hostOf = (job: StartedJob, p: JobProgress) => job.host ?? p.host ?? job.jobId.slice(0, 8);
const stopped = (p: JobProgress) => p.state === 'failed' || p.state === 'cancelled';

/** Reads `ids` again every POLL_MS while they are listed. */
function usePolling(ids: readonly string[], poll: (id: string) => void) {
  const latest = useRef(poll);
  useEffect(() => {
    latest.current = poll;
  });
  const key = ids.join(',');
  useEffect(() => {
    if (!key) return;
    const timer = setInterval(() => key.split(',').forEach((id) => latest.current(id)), POLL_MS);
    return () => clearInterval(timer);
  }, [key]);
}

/** Follows one job's event stream into its query: progress as it comes, the whole job once more at the end. */
function JobStream({ jobId }: { jobId: string }) {
  const { auth } = useSignedIn();
  const client = useQueryClient();
  useEventStream(`/v1/jobs/${encodeURIComponent(jobId)}/events`, auth, (event) => {
    if (event.event === 'progress') {
      try {
        const next = JSON.parse(event.data) as JobProgress;
        client.setQueryData<JobProgress>(jobKey(jobId), (now) => ({ ...(now ?? QUEUED), ...next }));
      } catch {
        /* skipped: the next event carries the whole progress again */
      }
    }
    // The end event's result carries the router; read the job once more for all of it.
    if (event.event === 'end') void client.invalidateQueries({ queryKey: jobKey(jobId) });
  });
  return null;
}
