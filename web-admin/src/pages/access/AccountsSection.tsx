import { useState, type FormEvent } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { Loading } from '../../components/Loading.js';
import { passwordProblem, ROLES, validateNewAccount, type FieldErrors, type Role } from './access-forms.js';
import { shortTime } from './access-time.js';
import { ConfirmButton } from './ConfirmButton.js';

type Account = ApiPaths['/v1/accounts']['get']['responses'][200]['content']['application/json']['items'][number];

/** Operator accounts (admins only): create, change role, disable or enable, reset password, delete. */
export function AccountsSection() {
  const { api, name: me, kind } = useSignedIn();
  const accounts = useApi(() => unwrap(api.GET('/v1/accounts')), [api]);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [resetting, setResetting] = useState<string | null>(null);

  const act = async (call: () => Promise<unknown>) => {
    setFailure(null);
    try {
      await call();
    } catch (error) {
      setFailure(asFailure(error));
    }
    accounts.reload();
  };
  const patch = (name: string, body: { role?: Role; disabled?: boolean }) =>
    act(() => unwrap(api.PATCH('/v1/accounts/{name}', { params: { path: { name } }, body })));
  const isMe = (account: Account) => kind === 'account' && account.name === me;

  return (
    <section className="wf-access__section" aria-labelledby="accounts-title">
      <h2 id="accounts-title">Operator accounts</h2>
      <p className="wf-access__lead">
        People who sign in to the console with a name and password. A role maps onto the API&apos;s scopes: read sees,
        write changes the fleet, admin also manages access.
      </p>
      {failure ? <ErrorNotice failure={failure} /> : null}
      {accounts.failure ? <ErrorNotice failure={accounts.failure} onRetry={accounts.reload} /> : null}
      {!accounts.data && accounts.loading ? <Loading what="Loading accounts" /> : null}
      {accounts.data ? (
        <div className="wf-table-wrap">
          <table className="wf-table">
            <caption className="wf-visually-hidden">Operator accounts</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Created by</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.items.length === 0 ? (
                <tr>
                  <td colSpan={6}>No accounts yet: create the first one below.</td>
                </tr>
              ) : null}
              {accounts.data.items.map((account) => (
                <tr key={account.name}>
                  <th scope="row">
                    {account.name}
                    {isMe(account) ? <span className="wf-access__you"> (you)</span> : null}
                  </th>
                  <td>
                    <label className="wf-visually-hidden" htmlFor={`role-${account.name}`}>
                      Role of {account.name}
                    </label>
                    <select
                      id={`role-${account.name}`}
                      value={account.role}
                      disabled={isMe(account)}
                      onChange={(e) => void patch(account.name, { role: e.target.value as Role })}
                    >
                      {ROLES.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <span className={`wf-status wf-status--${account.disabled ? 'offline' : 'online'}`}>
                      {account.disabled ? 'disabled' : 'active'}
                    </span>
                  </td>
                  <td>{shortTime(account.lastSignInAt)}</td>
                  <td>{account.createdBy}</td>
                  <td>
                    <div className="wf-access__actions">
                      {isMe(account) ? null : account.disabled ? (
                        <button
                          type="button"
                          className="wf-button wf-button--small"
                          onClick={() => void patch(account.name, { disabled: false })}
                        >
                          Enable
                        </button>
                      ) : (
                        <ConfirmButton
                          label="Disable"
                          question={`Disable ${account.name}? Its sessions end now.`}
                          onConfirm={() => patch(account.name, { disabled: true })}
                        />
                      )}
                      <button
                        type="button"
                        className="wf-button wf-button--small"
                        aria-expanded={resetting === account.name}
                        onClick={() => setResetting(resetting === account.name ? null : account.name)}
                      >
                        Reset password
                      </button>
                      {isMe(account) ? null : (
                        <ConfirmButton
                          label="Delete"
                          question={`Delete ${account.name}?`}
                          onConfirm={() =>
                            act(() =>
                              unwrap(api.DELETE('/v1/accounts/{name}', { params: { path: { name: account.name } } })),
                            )
                          }
                        />
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {resetting ? (
        <ResetPasswordForm
          name={resetting}
          onDone={() => {
            setResetting(null);
            accounts.reload();
          }}
        />
      ) : null}
      <CreateAccountForm onCreated={accounts.reload} />
    </section>
  );
}

function ResetPasswordForm({ name, onDone }: { name: string; onDone: () => void }) {
  const { api } = useSignedIn();
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local = passwordProblem(password);
    setProblem(local);
    if (local) return;
    try {
      await unwrap(api.PUT('/v1/accounts/{name}/password', { params: { path: { name } }, body: { password } }));
      onDone();
    } catch (error) {
      setFailure(asFailure(error));
    }
  };
  return (
    <form className="wf-form wf-access__form" onSubmit={(e) => void submit(e)} aria-label={`Reset password of ${name}`}>
      <h3>New password for {name}</h3>
      <Field label="New password" hint="Its sessions end; tell them the new password another way." error={problem}>
        <input
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      {failure ? <ErrorNotice failure={failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary">
          Set password
        </button>
        <button type="button" className="wf-button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function CreateAccountForm({ onCreated }: { onCreated: () => void }) {
  const { api } = useSignedIn();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('read');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors<'name' | 'role' | 'password'>>({});
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateNewAccount({ name, role, password });
    setErrors(found);
    setFailure(null);
    setCreated(null);
    if (Object.keys(found).length > 0) return;
    try {
      const account = await unwrap(api.POST('/v1/accounts', { body: { name: name.trim(), role, password } }));
      setCreated(account.name);
      setName('');
      setPassword('');
      onCreated();
    } catch (error) {
      setFailure(asFailure(error));
    }
  };
  return (
    <form className="wf-form wf-access__form" onSubmit={(e) => void submit(e)} aria-labelledby="create-account-title">
      <h3 id="create-account-title">Create an account</h3>
      <Field label="Account name" error={errors.name}>
        <input autoComplete="off" spellCheck={false} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Account role" error={errors.role}>
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Initial password"
        hint="At least 12 characters; give it to the operator another way."
        error={errors.password}
      >
        <input
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      {failure ? <ErrorNotice failure={failure} /> : null}
      {created ? (
        <p className="wf-notice" role="status">
          Created {created}.
        </p>
      ) : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary">
          Create account
        </button>
      </div>
    </form>
  );
}
