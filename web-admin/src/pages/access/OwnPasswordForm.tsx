import { useState, type FormEvent } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { passwordProblem } from './access-forms.js';

/** The signed-in account's own password: needs the current one; its other sessions end. */
export function OwnPasswordForm() {
  const { api, name } = useSignedIn();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const change = useApiMutation(
    () => unwrap(api.PUT('/v1/session/password', { body: { currentPassword: current, newPassword: next } })),
    {
      onSuccess: () => {
        setCurrent('');
        setNext('');
      },
    },
  );
  const done = change.succeeded;
  const failure = change.failure;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const local = passwordProblem(next);
    setProblem(local);
    change.reset();
    if (!local) change.run(undefined);
  };
  return (
    <section className="wf-access__section" aria-labelledby="own-password-title">
      <h2 id="own-password-title">Your password</h2>
      <form className="wf-form wf-access__form" onSubmit={submit} aria-labelledby="own-password-title">
        <input type="text" name="username" autoComplete="username" value={name} readOnly hidden />
        <Field label="Current password">
          <input
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field>
        <Field label="New password" hint="At least 12 characters. Your other sessions end." error={problem}>
          <input
            type="password"
            autoComplete="new-password"
            required
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
        </Field>
        {failure ? <ErrorNotice failure={failure} /> : null}
        {done ? (
          <p className="wf-notice" role="status">
            Password changed.
          </p>
        ) : null}
        <div className="wf-form__actions">
          <button type="submit" className="wf-button wf-button--primary">
            Change password
          </button>
        </div>
      </form>
    </section>
  );
}
