import { useState, type FormEvent } from 'react';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiMutation, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { passwordProblem, ROLES, validateNewAccount, type FieldErrors, type Role } from './access-forms.js';
import { shortTime } from './access-time.js';
import { ConfirmButton } from './ConfirmButton.js';

type Account = ApiPaths['/v1/accounts']['get']['responses'][200]['content']['application/json']['items'][number];

/** A change to one account: its fields, or its removal. */
type AccountChange = { name: string; patch: { role?: Role; disabled?: boolean } } | { name: string; remove: true };

/** Operator accounts (admins only): create, change role, disable or enable, reset password, delete. */
export function AccountsSection() {
  const { api, name: me, kind } = useSignedIn();
  const accounts = useApiQuery(queryKeys.accounts, () => unwrap(api.GET('/v1/accounts')));
  const [resetting, setResetting] = useState<string | null>(null);
  const change = useApiMutation(
    (c: AccountChange) =>
      'remove' in c
        ? unwrap(api.DELETE('/v1/accounts/{name}', { params: { path: { name: c.name } } }))
        : unwrap(api.PATCH('/v1/accounts/{name}', { params: { path: { name: c.name } }, body: c.patch })),
    { invalidates: [queryKeys.accounts] },
  );
  const patch = (name: string, body: { role?: Role; disabled?: boolean }) => change.runAsync({ name, patch: body });
  const isMe = (account: Account) => kind === 'account' && account.name === me;
  const columns: Column<Account>[] = [
    {
      id: 'name',
      header: 'Name',
      rowHeader: true,
      sortValue: (a) => a.name,
      cell: (account) => (
        <>
          {account.name}
          {isMe(account) ? <span className="wf-access__you"> (you)</span> : null}
        </>
      ),
    },
    {
      id: 'role',
      header: 'Role',
      sortValue: (a) => a.role,
      cell: (account) => (
        <>
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
        </>
      ),
    },
    {
      id: 'state',
      header: 'State',
      sortValue: (a) => (a.disabled ? 'disabled' : 'active'),
      cell: (account) => (
        <span className={`wf-status wf-status--${account.disabled ? 'offline' : 'online'}`}>
          {account.disabled ? 'disabled' : 'active'}
        </span>
      ),
    },
    { id: 'signin', header: 'Last sign-in', sortValue: (a) => a.lastSignInAt, cell: (a) => shortTime(a.lastSignInAt) },
    { id: 'by', header: 'Created by', sortValue: (a) => a.createdBy, cell: (a) => a.createdBy },
    {
      id: 'actions',
      header: 'Actions',
      cell: (account) => (
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
              onConfirm={() => change.runAsync({ name: account.name, remove: true })}
            />
          )}
        </div>
      ),
    },
  ];

  return (
    <section className="wf-access__section" aria-labelledby="accounts-title">
      <h2 id="accounts-title">Operator accounts</h2>
      <p className="wf-access__lead">
        People who sign in to the console with a name and password. A role maps onto the API&apos;s scopes: read sees,
        write changes the fleet, admin also manages access.
      </p>
      {change.failure ? <ErrorNotice failure={change.failure} /> : null}
      <DataTable
        rows={accounts.data?.items ?? []}
        columns={columns}
        rowKey={(a) => a.name}
        caption="Operator accounts"
        empty={<p className="wf-muted">No accounts yet: create the first one below.</p>}
        failure={accounts.failure}
        onRetry={accounts.retry}
        loading={accounts.loading}
        loadingWhat="Loading accounts"
      />
      {resetting ? <ResetPasswordForm name={resetting} onDone={() => setResetting(null)} /> : null}
      <CreateAccountForm />
    </section>
  );
}

function ResetPasswordForm({ name, onDone }: { name: string; onDone: () => void }) {
  const { api } = useSignedIn();
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const reset = useApiMutation(
    () => unwrap(api.PUT('/v1/accounts/{name}/password', { params: { path: { name } }, body: { password } })),
    { invalidates: [queryKeys.accounts], onSuccess: onDone },
  );
  const failure = reset.failure;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const local = passwordProblem(password);
    setProblem(local);
    if (!local) reset.run(undefined);
  };
  return (
    <form className="wf-form wf-access__form" onSubmit={submit} aria-label={`Reset password of ${name}`}>
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

function CreateAccountForm() {
  const { api } = useSignedIn();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('read');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors<'name' | 'role' | 'password'>>({});
  // The new account is listed at once: the create invalidates the list.
  const create = useApiMutation(
    () => unwrap(api.POST('/v1/accounts', { body: { name: name.trim(), role, password } })),
    {
      invalidates: [queryKeys.accounts],
      onSuccess: () => {
        setName('');
        setPassword('');
      },
    },
  );
  const failure = create.failure;
  const created = create.data?.name ?? null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateNewAccount({ name, role, password });
    setErrors(found);
    create.reset();
    if (Object.keys(found).length === 0) create.run(undefined);
  };
  return (
    <form className="wf-form wf-access__form" onSubmit={submit} aria-labelledby="create-account-title">
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
