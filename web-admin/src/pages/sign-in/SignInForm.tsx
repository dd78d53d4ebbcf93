import { useState, type FormEvent } from 'react';
import { useApiMutation } from '../../api/queries.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { useSession, type Credentials } from '../../app/session.js';

/** Name and password, or an API token pasted instead ("use an API token"). */
export function SignInForm({ name: knownName }: { name?: string }) {
  const { signIn } = useSession();
  const [mode, setMode] = useState<'password' | 'token'>('password');
  const [name, setName] = useState(knownName ?? '');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const attempt = useApiMutation((credentials: Credentials) => signIn(credentials));
  const failure = attempt.failure;
  const busy = attempt.pending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    attempt.run(mode === 'password' ? { name: name.trim(), password } : { token }, {
      onFailure: () => setPassword(''),
    });
  };

  return (
    <form className="wf-form wf-signin__form" onSubmit={submit} aria-busy={busy}>
      {mode === 'password' ? (
        <>
          <Field label="Name">
            <input
              name="username"
              autoComplete="username"
              required
              value={name}
              onChange={(e) => setName(e.target.value)}
              autoFocus={!knownName}
            />
          </Field>
          <Field label="Password">
            <input
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoFocus={Boolean(knownName)}
            />
          </Field>
        </>
      ) : (
        <Field label="API token" hint="A token of the controller (wft_…); the console keeps it for this session only.">
          <input
            name="token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            required
            value={token}
            onChange={(e) => setToken(e.target.value)}
            autoFocus
          />
        </Field>
      )}
      {failure ? <ErrorNotice failure={failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary" disabled={busy}>
          Sign in
        </button>
        <button
          type="button"
          className="wf-button wf-button--link"
          onClick={() => {
            setMode(mode === 'password' ? 'token' : 'password');
            attempt.reset();
          }}
        >
          {mode === 'password' ? 'Use an API token' : 'Use a name and password'}
        </button>
      </div>
    </form>
  );
}
