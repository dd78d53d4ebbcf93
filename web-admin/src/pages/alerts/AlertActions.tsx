import { useState } from 'react';
import { AcknowledgeDialog } from './AcknowledgeDialog.js';
import type { Alert } from './alert-types.js';
import { SilenceDialog } from './SilenceDialog.js';

/**
 * An unresolved alert's actions: Acknowledge (unless someone already has) and Silence (unless a
 * silence already holds it). Shown only to callers with the write scope; the caller decides.
 */
export function AlertActions({ alert, silence = true }: { alert: Alert; silence?: boolean }) {
  const [open, setOpen] = useState<'ack' | 'silence' | null>(null);
  if (alert.status === 'resolved') return null;
  const label = `${alert.rule.name} on ${alert.subject.name}`;
  return (
    <div className="wf-alert-actions">
      {alert.acknowledged ? null : (
        <button
          type="button"
          className="wf-button wf-button--small"
          aria-label={`Acknowledge ${label}`}
          onClick={() => setOpen('ack')}
        >
          Acknowledge
        </button>
      )}
      {silence && !alert.silence ? (
        <button
          type="button"
          className="wf-button wf-button--small"
          aria-label={`Silence ${label}`}
          onClick={() => setOpen('silence')}
        >
          Silence
        </button>
      ) : null}
      {open === 'ack' ? <AcknowledgeDialog alert={alert} onClose={() => setOpen(null)} /> : null}
      {open === 'silence' ? <SilenceDialog alert={alert} onClose={() => setOpen(null)} /> : null}
    </div>
  );
}
