import { useState, type FormEvent } from 'react';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiMutation, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import {
  apiTokenRequest,
  TOKEN_LIFETIMES,
  TOKEN_SCOPES,
  validateNewApiToken,
  type FieldErrors,
  type TokenScope,
} from './access-forms.js';
import { shortTime } from './access-time.js';
import { ConfirmButton } from './ConfirmButton.js';
import { SecretOnce } from './SecretOnce.js';

type ApiToken = ApiPaths['/v1/tokens']['get']['responses'][200]['content']['application/json']['items'][number];

/** API tokens for automation (admins only): list, create (the value shown once), revoke. */
export function ApiTokensSection() {
  const { api } = useSignedIn();
  const tokens = useApiQuery(queryKeys.apiTokens, () => unwrap(api.GET('/v1/tokens')));
  const [minted, setMinted] = useState<{ name: string; token: string } | null>(null);
  const revoke = useApiMutation((id: string) => unwrap(api.DELETE('/v1/tokens/{id}', { params: { path: { id } } })), {
    invalidates: [queryKeys.apiTokens],
  });
  const columns: Column<ApiToken>[] = [
    { id: 'name', header: 'Name', rowHeader: true, sortValue: (t) => t.name, cell: (t) => t.name },
    { id: 'owner', header: 'Owner', sortValue: (t) => t.owner, cell: (t) => t.owner },
    { id: 'prefix', header: 'Prefix', cell: (t) => <code>{t.prefix}…</code> },
    { id: 'scopes', header: 'Scopes', cell: (t) => t.scopes.join(', ') },
    {
      id: 'state',
      header: 'State',
      sortValue: (t) => t.state,
      cell: (t) => (
        <span className={`wf-status wf-status--${t.state === 'active' ? 'online' : 'offline'}`}>{t.state}</span>
      ),
    },
    { id: 'used', header: 'Last used', sortValue: (t) => t.lastUsedAt, cell: (t) => shortTime(t.lastUsedAt) },
    {
      id: 'expires',
      header: 'Expires',
      sortValue: (t) => t.expiresAt,
      cell: (t) => (t.expiresAt ? shortTime(t.expiresAt) : 'never'),
    },
    {
      id: 'actions',
      header: 'Actions',
      cell: (t) =>
        t.state === 'active' ? (
          <ConfirmButton
            label="Revoke"
            question={`Revoke ${t.name}? Whatever uses it stops working.`}
            onConfirm={() => revoke.runAsync(t.id)}
          />
        ) : null,
    },
  ];

  return (
    <section className="wf-access__section" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p className="wf-access__lead">
        Bearer tokens for scripts and the CLI (<code>Authorization: Bearer wft_…</code>). Changes made with one are
        audited as <code>token:&lt;owner&gt;</code>.
      </p>
      {minted ? (
        <SecretOnce title={`API token "${minted.name}"`} secret={minted.token} onDismiss={() => setMinted(null)} />
      ) : null}
      {revoke.failure ? <ErrorNotice failure={revoke.failure} /> : null}
      <DataTable
        rows={tokens.data?.items ?? []}
        columns={columns}
        rowKey={(t) => t.id}
        caption="API tokens"
        empty={<p className="wf-muted">No API tokens.</p>}
        failure={tokens.failure}
        onRetry={tokens.retry}
        loading={tokens.loading}
        loadingWhat="Loading API tokens"
      />
      <CreateTokenForm onCreated={(name, token) => setMinted({ name, token })} />
    </section>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (name: string, token: string) => void }) {
  const { api } = useSignedIn();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<TokenScope[]>(['read']);
  const [lifetime, setLifetime] = useState(String(TOKEN_LIFETIMES[3].seconds));
  const [errors, setErrors] = useState<FieldErrors<'name' | 'scopes'>>({});
  // The new token is listed at once: the create invalidates the list.
  const create = useApiMutation(
    (body: ReturnType<typeof apiTokenRequest>) => unwrap(api.POST('/v1/tokens', { body })),
    {
      invalidates: [queryKeys.apiTokens],
      onSuccess: (created) => {
        onCreated(created.name, created.token);
        setName('');
      },
    },
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateNewApiToken({ name, scopes });
    setErrors(found);
    create.reset();
    if (Object.keys(found).length > 0) return;
    const lifetimeSeconds = lifetime === 'null' ? null : Number(lifetime);
    create.run(apiTokenRequest({ name, scopes, lifetimeSeconds }));
  };
  const toggle = (scope: TokenScope) =>
    setScopes((now) => (now.includes(scope) ? now.filter((s) => s !== scope) : [...now, scope]));

  return (
    <form className="wf-form wf-access__form" onSubmit={submit} aria-labelledby="create-token-title">
      <h3 id="create-token-title">Create an API token</h3>
      <Field label="Token name" hint="What uses it, e.g. ci-deploy." error={errors.name}>
        <input autoComplete="off" spellCheck={false} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <fieldset className="wf-access__scopes" aria-describedby={errors.scopes ? 'token-scopes-error' : undefined}>
        <legend>Scopes</legend>
        {TOKEN_SCOPES.map((scope) => (
          <label key={scope}>
            <input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} /> {scope}
          </label>
        ))}
        {errors.scopes ? (
          <p className="wf-field__error" id="token-scopes-error">
            {errors.scopes}
          </p>
        ) : null}
      </fieldset>
      <Field label="Expires">
        <select value={lifetime} onChange={(e) => setLifetime(e.target.value)}>
          {TOKEN_LIFETIMES.map((l) => (
            <option key={l.label} value={String(l.seconds)}>
              {l.label}
            </option>
          ))}
        </select>
      </Field>
      {create.failure ? <ErrorNotice failure={create.failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary" disabled={create.pending}>
          Create token
        </button>
      </div>
    </form>
  );
}
