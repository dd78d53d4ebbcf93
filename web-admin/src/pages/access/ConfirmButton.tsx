import { useState } from 'react';

/**
 * A destructive action in two steps: the first click asks ("Revoke token ci?"), the second
 * does it. Inline rather than a modal, so a table of tokens stays in view while confirming.
 */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  danger = true,
}: {
  label: string;
  question: string;
  onConfirm: () => Promise<unknown> | void;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking)
    return (
      <button type="button" className="wf-button wf-button--small" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="wf-confirm" role="group" aria-label={question}>
      <span className="wf-confirm__question">{question}</span>
      <button
        type="button"
        className={`wf-button wf-button--small${danger ? ' wf-button--danger' : ''}`}
        disabled={busy}
        autoFocus
        onClick={() => {
          setBusy(true);
          void Promise.resolve(onConfirm()).finally(() => {
            setBusy(false);
            setAsking(false);
          });
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" className="wf-button wf-button--small" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
