import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import type { Alert } from './alert-types.js';

/** Acknowledge an alert: an operator is on it (its group stops announcing it), with an optional note. */
export function AcknowledgeDialog({ alert, onClose }: { alert: Alert; onClose(): void }) {
  const { api } = useSignedIn();
  const [note, setNote] = useState('');
  const ack = useApiMutation(
    (text: string) =>
      unwrap(
        api.POST('/v1/alerts/{id}/acknowledge', {
          params: { path: { id: alert.id } },
          body: text.trim() ? { note: text.trim() } : {},
        }),
      ),
    { invalidates: [queryKeys.alerts] },
  );
  return (
    <ConfirmDialog
      title={`Acknowledge ${alert.rule.name} on ${alert.subject.name}?`}
      confirmLabel="Acknowledge"
      busy={ack.pending}
      onConfirm={() => ack.run(note, { onSuccess: onClose })}
      onCancel={onClose}
    >
      <p>Says that someone is on it: the alert stays until its condition clears, and its group stops announcing it.</p>
      <Field label="Note" hint="Optional: what you are doing about it.">
        <textarea rows={3} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
      </Field>
      {ack.failure ? <ErrorNotice failure={ack.failure} /> : null}
    </ConfirmDialog>
  );
}
