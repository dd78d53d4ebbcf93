import { useEffect, useState } from 'react';
import { asFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { Link } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
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

/** Onboarding jobs with their live progress, each with a cancel while it runs and a retry once it failed. */
export function JobsTable({
  jobs,
  onRetry,
}: {
  jobs: readonly StartedJob[];
  /** Opens the form for a new job on the same target; absent for a caller who may not onboard. */
  onRetry?: (jobId: string, fields: OnboardingFields) => void;
}) {
  const [done, setDone] = useState<ReadonlySet<string>>(new Set());
  const open = jobs.filter((j) => !done.has(j.jobId));
  const streamed = new Set(open.slice(0, STREAMED).map((j) => j.jobId));
  const markDone = (id: string) => setDone((now) => (now.has(id) ? now : new Set([...now, id])));
  if (jobs.length === 0) return null;
  return (
    <section className="wf-panel" aria-labelledby="jobs-title">
      <h2 id="jobs-title">Onboarding jobs</h2>
      <p className="wf-muted" role="status">
        {jobs.length - open.length} of {jobs.length} finished
      </p>
      <div className="wf-table-wrap">
        <table className="wf-table" aria-label="Onboarding jobs">
          <thead>
            <tr>
              <th scope="col">Router</th>
              <th scope="col">From</th>
              <th scope="col">State</th>
              <th scope="col">Progress</th>
              <th scope="col">Step</th>
              <th scope="col">Message</th>
              <th scope="col">
                <span className="wf-visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <JobRow
                key={j.jobId}
                job={j}
                stream={streamed.has(j.jobId)}
                onDone={() => markDone(j.jobId)}
                onRetry={onRetry}
              />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function JobRow({
  job,
  stream,
  onDone,
  onRetry,
}: {
  job: StartedJob;
  stream: boolean;
  onDone(): void;
  onRetry?: (jobId: string, fields: OnboardingFields) => void;
}) {
  const { api, auth, can } = useSignedIn();
  const [progress, setProgress] = useState<JobProgress>({ state: 'queued', step: null, percent: 0, message: 'queued' });
  const [cancelError, setCancelError] = useState<string | null>(null);
  const finished = TERMINAL.has(progress.state);

  const reread = () =>
    unwrap(api.GET('/v1/jobs/{id}', { params: { path: { id: job.jobId } } })).then((j) =>
      setProgress({
        host: ((j.input ?? {}) as { host?: string }).host,
        state: j.state,
        step: j.step,
        percent: j.percent,
        message: j.message,
        error: j.error,
        routerId: ((j.result ?? {}) as { routerId?: string }).routerId ?? null,
        input: (j.input ?? {}) as StoredOnboarding,
        result: (j.result ?? null) as { hostKeyFingerprint?: unknown } | null,
      }),
    );

  useEventStream(stream && !finished ? `/v1/jobs/${encodeURIComponent(job.jobId)}/events` : null, auth, (event) => {
    if (event.event === 'progress') {
      try {
        setProgress((now) => ({ ...now, ...(JSON.parse(event.data) as JobProgress) }));
      } catch {
        /* skipped: the next event carries the whole progress again */
      }
    }
    // The end event's result carries the router; read the job once more for all of it.
    if (event.event === 'end') void reread().catch(() => undefined);
  });

  // A job opened from a link is read once at once: its host and where it stands.
  useEffect(() => {
    if (job.host === null) void reread().catch(() => undefined);
  }, [job.jobId]);

  useEffect(() => {
    if (stream || finished) return;
    const timer = setInterval(() => void reread().catch(() => undefined), POLL_MS);
    return () => clearInterval(timer);
    // reread is rebuilt every render; the interval only needs the job and the mode.
  }, [stream, finished, job.jobId]);

  useEffect(() => {
    if (finished) onDone();
  }, [finished, onDone]);

  const cancel = async () => {
    setCancelError(null);
    try {
      await unwrap(api.POST('/v1/jobs/{id}/cancel', { params: { path: { id: job.jobId } } }));
      await reread();
    } catch (error) {
      setCancelError(asFailure(error).message);
    }
  };

  const host = job.host ?? progress.host ?? job.jobId.slice(0, 8);
  const stopped = progress.state === 'failed' || progress.state === 'cancelled';
  return (
    <tr data-job={job.jobId} data-state={progress.state}>
      <td>{progress.routerId ? <Link to={`/routers/${encodeURIComponent(progress.routerId)}`}>{host}</Link> : host}</td>
      <td>{job.row ?? ''}</td>
      <td>
        <span className={`wf-status wf-status--${progress.state}`}>{progress.state}</span>
      </td>
      <td>
        <progress max={100} value={progress.percent} aria-label={`${host} progress`}>
          {progress.percent}%
        </progress>{' '}
        {progress.percent}%
      </td>
      <td>{stopped && progress.step ? `stopped at ${progress.step}` : (progress.step ?? '')}</td>
      <td className={`wf-job__message${progress.state === 'failed' ? ' wf-job__message--failed' : ''}`}>
        {progress.error ?? progress.message ?? ''}
        {cancelError ? <span className="wf-field__error"> {cancelError}</span> : null}
      </td>
      <td>
        {can('write') && !finished ? (
          <button type="button" className="wf-button wf-button--small" onClick={() => void cancel()}>
            Cancel
          </button>
        ) : null}
        {onRetry && stopped && progress.input ? (
          <button
            type="button"
            className="wf-button wf-button--small"
            aria-label={`Retry ${host}`}
            onClick={() => onRetry(job.jobId, retryFields(progress.input!, progress.result ?? null))}
          >
            Retry
          </button>
        ) : null}
      </td>
    </tr>
  );
}
