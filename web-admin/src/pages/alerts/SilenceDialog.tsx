import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import {
  SILENCE_DURATIONS,
  silenceRequest,
  silenceScopes,
  type SilenceChoices,
  type SilenceErrors,
  type SilenceScope,
} from './alert-format.js';
import type { Alert, SilenceBody } from './alert-types.js';

function scopeLabel(scope: SilenceScope, alert: Alert): string {
  switch (scope) {
    case 'both':
      return `Rule ${alert.rule.name} on ${alert.subject.name}`;
    case 'router':
      return `Every rule on ${alert.subject.name}`;
    case 'rule':
      return `Rule ${alert.rule.name} everywhere`;
  }
}

/**
 * Silence the notifications of an alert's router, of its rule, or of both, for a time: an hour,
 * four, a day, or until a chosen end. The silence is listed with its comment, which is required.
 */
export function SilenceDialog({ alert, onClose }: { alert: Alert; onClose(): void }) {
  const { api } = useSignedIn();
  const scopes = silenceScopes(alert);
  const [choices, setChoices] = useState<SilenceChoices>({
    scope: scopes[0]!,
    duration: '1h',
    customEnd: '',
    comment: '',
  });
  const [errors, setErrors] = useState<SilenceErrors>({});
  const create = useApiMutation((body: SilenceBody) => unwrap(api.POST('/v1/silences', { body })), {
    invalidates: [queryKeys.alerts],
  });
  const set = (patch: Partial<SilenceChoices>) => {
    setChoices((c) => ({ ...c, ...patch }));
    // An error goes once its field is edited; the next Silence checks again.
    setErrors((e) => ({
      ...(e.comment && !('comment' in patch) ? { comment: e.comment } : {}),
      ...(e.customEnd && !('customEnd' in patch) && !('duration' in patch) ? { customEnd: e.customEnd } : {}),
    }));
  };
  const submit = () => {
    const request = silenceRequest(alert, choices, Date.now());
    if (!request.ok) return setErrors(request.errors);
    setErrors({});
    create.run(request.body, { onSuccess: onClose });
  };
  return (
    <ConfirmDialog
      title={`Silence ${alert.rule.name} on ${alert.subject.name}?`}
      confirmLabel="Silence"
      busy={create.pending}
      onConfirm={submit}
      onCancel={onClose}
    >
      <p className="wf-dialog__summary">{alert.summary}</p>
      <p>Holds back the notifications of what it matches until it ends; the alerts still show here.</p>
      <div className="wf-silence-form">
        <fieldset className="wf-choice">
          <legend>Silence</legend>
          {scopes.map((scope) => (
            <label key={scope} className="wf-check">
              <input
                type="radio"
                name="silence-scope"
                value={scope}
                checked={choices.scope === scope}
                onChange={() => set({ scope })}
              />
              {scopeLabel(scope, alert)}
            </label>
          ))}
        </fieldset>
        <fieldset className="wf-choice">
          <legend>For</legend>
          <div className="wf-choice__row">
            {SILENCE_DURATIONS.map((d) => (
              <label key={d.id} className="wf-check">
                <input
                  type="radio"
                  name="silence-duration"
                  value={d.id}
                  checked={choices.duration === d.id}
                  onChange={() => set({ duration: d.id })}
                />
                {d.label}
              </label>
            ))}
          </div>
        </fieldset>
        {choices.duration === 'custom' ? (
          <Field label="Ends at" hint="In your browser's time zone." error={errors.customEnd}>
            <input
              type="datetime-local"
              value={choices.customEnd}
              onChange={(e) => set({ customEnd: e.target.value })}
            />
          </Field>
        ) : null}
        <Field label="Comment" hint="Why, for whoever sees the silence." error={errors.comment}>
          <textarea
            rows={2}
            maxLength={1000}
            required
            value={choices.comment}
            onChange={(e) => set({ comment: e.target.value })}
          />
        </Field>
      </div>
      {create.failure ? <ErrorNotice failure={create.failure} /> : null}
    </ConfirmDialog>
  );
}
