import type { StreamState } from '../../api/event-stream.js';

/** Where a live view's event stream stands, in words: live, reconnecting (and why), ended, failed. */
export function StreamBadge({ state }: { state: StreamState }) {
  const text =
    state.status === 'open'
      ? 'Live'
      : state.status === 'connecting'
        ? 'Connecting…'
        : state.status === 'reconnecting'
          ? `Connection lost (${state.reason}); reconnecting, attempt ${state.attempt}…`
          : state.status === 'ended'
            ? 'Finished'
            : `Live updates stopped: ${state.failure.message}`;
  return (
    <p className={`wf-stream wf-stream--${state.status}`} role="status" aria-live="polite">
      {text}
    </p>
  );
}
