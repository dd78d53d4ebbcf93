import { useRef, useState } from 'react';
import { useEventStream } from '../../api/event-stream.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { targetStateText } from './router-actions.js';

interface TargetEvent {
  state: string;
  reason: string | null;
  output: string | null;
}

const FINAL = new Set(['succeeded', 'failed', 'timed_out', 'cancelled', 'refused']);

/** A command on this router, followed live by its event stream until it ends: state, then the agent's output. */
export function CommandProgress({ jobId, label, onEnded }: { jobId: string; label: string; onEnded(): void }) {
  const { auth } = useSignedIn();
  const [target, setTarget] = useState<TargetEvent | null>(null);
  const [jobState, setJobState] = useState('running');
  const told = useRef(false);
  const stream = useEventStream(`/v1/commands/${encodeURIComponent(jobId)}/events`, auth, (event) => {
    if (event.event === 'target') setTarget(JSON.parse(event.data) as TargetEvent);
    if (event.event === 'progress') setJobState((JSON.parse(event.data) as { state: string }).state);
    if (event.event === 'end') {
      setJobState((JSON.parse(event.data) as { state: string }).state);
      if (!told.current) {
        told.current = true;
        onEnded();
      }
    }
  });
  const state = target?.state ?? 'queued';
  const final = FINAL.has(state);
  return (
    <div className="wf-result" role="status" aria-live="polite" data-testid="command-result">
      <p>
        <strong>{label}</strong>:{' '}
        <span className={`wf-status wf-status--${state === 'succeeded' ? 'succeeded' : final ? 'failed' : 'pending'}`}>
          {targetStateText(state)}
        </span>
        {jobState !== 'running' && !final ? ` (job ${jobState})` : null}
        {stream.status === 'reconnecting' ? <span className="wf-muted"> · reconnecting ({stream.reason})</span> : null}
      </p>
      {target?.reason ? <p className="wf-history__error">{target.reason}</p> : null}
      {target?.output ? <pre className="wf-pre">{target.output}</pre> : null}
      {stream.status === 'failed' ? <ErrorNotice failure={stream.failure} /> : null}
    </div>
  );
}
