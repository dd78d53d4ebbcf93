import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { useApiMutation } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import type { Command } from './fleet-types.js';

interface TargetProgress {
  routerId: string;
  name: string;
  state: string;
  reason: string | null;
  output: string | null;
}

const FINISHED_JOB = new Set(['completed', 'cancelled']);

/** A command's live progress: per router its state and the agent's result, the job's counts, cancel. */
export function CommandProgress({ job: started, onClose }: { job: Command; onClose(): void }) {
  const { api, auth, can } = useSignedIn();
  const [job, setJob] = useState<Command>(started);
  const [targets, setTargets] = useState<Map<string, TargetProgress>>(new Map());
  const stream = useEventStream(`/v1/commands/${encodeURIComponent(started.id)}/events`, auth, (event) => {
    const data = JSON.parse(event.data) as unknown;
    if (event.event === 'target') {
      const t = data as TargetProgress;
      setTargets((old) => new Map(old).set(t.routerId, t));
    } else if (event.event === 'progress') setJob(data as Command);
  });
  const cancel = useApiMutation(
    () => unwrap(api.POST('/v1/commands/{id}/cancel', { params: { path: { id: started.id } } })),
    { invalidates: [queryKeys.commands], onSuccess: setJob },
  );
  const running = !FINISHED_JOB.has(job.state);
  const rows = [...targets.values()].sort((a, b) => a.name.localeCompare(b.name));
  const counts = Object.entries(job.counts).filter(([, n]) => n > 0);
  return (
    <section className="wf-fleet-progress" aria-labelledby="wf-command-progress-title">
      <header className="wf-fleet-progress__header">
        <h2 id="wf-command-progress-title">
          {job.kind.replace('_', ' ')} · {job.finished}/{job.total} done · {job.state}
        </h2>
        <p aria-live="polite" className="wf-fleet-progress__counts">
          {counts.map(([state, n]) => `${n} ${state.replace('_', ' ')}`).join(' · ') || 'waiting…'}
          {stream.status === 'reconnecting' ? ' · reconnecting…' : ''}
        </p>
        <div className="wf-fleet-progress__actions">
          {running && can('write') ? (
            <button
              type="button"
              className="wf-button wf-button--danger wf-button--small"
              onClick={() => cancel.run(undefined)}
            >
              Cancel command
            </button>
          ) : null}
          <button type="button" className="wf-button wf-button--small" onClick={onClose}>
            Close
          </button>
        </div>
      </header>
      {cancel.failure ? <ErrorNotice failure={cancel.failure} /> : null}
      <ul className="wf-fleet-progress__list" aria-label="Per-router results">
        {rows.map((t) => (
          <li key={t.routerId} data-router={t.name}>
            <span className="wf-fleet-progress__name">{t.name}</span>
            <span className={`wf-status wf-status--${t.state}`}>{t.state.replace('_', ' ')}</span>
            <span className="wf-fleet-progress__text">{t.output ?? t.reason ?? ''}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
