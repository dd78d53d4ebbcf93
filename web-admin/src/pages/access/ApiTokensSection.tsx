import { useState, type FormEvent } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { Loading } from '../../components/Loading.js';
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

/** API tokens for automation (admins only): list, create (the value shown once), revoke. */
export function ApiTokensSection() {
  const { api } = useSignedIn();
  const tokens = useApi(() => unwrap(api.GET('/v1/tokens')), [api]);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [minted, setMinted] = useState<{ name: string; token: string } | null>(null);

  const revoke = async (id: string) => {
    setFailure(null);
    try {
      await unwrap(api.DELETE('/v1/tokens/{id}', { params: { path: { id } } }));
    } catch (error) {
      setFailure(asFailure(error));
    }
    tokens.reload();
  };

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
      {failure ? <ErrorNotice failure={failure} /> : null}
      {tokens.failure ? <ErrorNotice failure={tokens.failure} onRetry={tokens.reload} /> : null}
      {!tokens.data && tokens.loading ? <Loading what="Loading API tokens" /> : null}
      {tokens.data ? (
        <div className="wf-table-wrap">
          <table className="wf-table">
            <caption className="wf-visually-hidden">API tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Owner</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">State</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.items.map((token) => (
                <tr key={token.id}>
                  <th scope="row">{token.name}</th>
                  <td>{token.owner}</td>
                  <td>
                    <code>{token.prefix}…</code>
                  </td>
                  <td>{token.scopes.join(', ')}</td>
                  <td>
                    <span className={`wf-status wf-status--${token.state === 'active' ? 'online' : 'offline'}`}>
                      {token.state}
                    </span>
                  </td>
                  <td>{shortTime(token.lastUsedAt)}</td>
                  <td>{token.expiresAt ? shortTime(token.expiresAt) : 'never'}</td>
                  <td>
                    {token.state === 'active' ? (
                      <ConfirmButton
                        label="Revoke"
                        question={`Revoke ${token.name}? Whatever uses it stops working.`}
                        onConfirm={() => revoke(token.id)}
                      />
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <CreateTokenForm
        onCreated={(name, token) => {
          setMinted({ name, token });
          tokens.reload();
        }}
      />
    </section>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (name: string, token: string) => void }) {
  const { api } = useSignedIn();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<TokenScope[]>(['read']);
  const [lifetime, setLifetime] = useState(String(TOKEN_LIFETIMES[3].seconds));
  const [errors, setErrors] = useState<FieldErrors<'name' | 'scopes'>>({});
  const [failure, setFailure] = useState<ApiFailure | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateNewApiToken({ name, scopes });
    setErrors(found);
    setFailure(null);
    if (Object.keys(found).length > 0) return;
    const lifetimeSeconds = lifetime === 'null' ? null : Number(lifetime);
    try {
      const created = await unwrap(
        api.POST('/v1/tokens', { body: apiTokenRequest({ name, scopes, lifetimeSeconds }) }),
      );
      onCreated(created.name, created.token);
      setName('');
    } catch (error) {
      setFailure(asFailure(error));
    }
  };
  const toggle = (scope: TokenScope) =>
    setScopes((now) => (now.includes(scope) ? now.filter((s) => s !== scope) : [...now, scope]));

  return (
    <form className="wf-form wf-access__form" onSubmit={(e) => void submit(e)} aria-labelledby="create-token-title">
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
      {failure ? <ErrorNotice failure={failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary">
          Create token
        </button>
      </div>
    </form>
  );
}
