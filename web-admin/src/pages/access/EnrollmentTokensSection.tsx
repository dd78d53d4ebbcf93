import { useState, type FormEvent } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { Loading } from '../../components/Loading.js';
import { ENROLLMENT_LIFETIME_HOURS, parseTags } from './access-forms.js';
import { shortTime } from './access-time.js';
import { ConfirmButton } from './ConfirmButton.js';
import { SecretOnce } from './SecretOnce.js';

interface Minted {
  token: string;
  caFingerprint: string | null;
  grpcAddress: string;
  routerName: string | null;
}

/** Single-use enrollment tokens an agent trades for its certificate: list, create (shown once), revoke. */
export function EnrollmentTokensSection() {
  const { api } = useSignedIn();
  const tokens = useApi(() => unwrap(api.GET('/v1/enrollment-tokens')), [api]);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [minted, setMinted] = useState<Minted | null>(null);

  const revoke = async (id: string) => {
    setFailure(null);
    try {
      await unwrap(api.DELETE('/v1/enrollment-tokens/{id}', { params: { path: { id } } }));
    } catch (error) {
      setFailure(asFailure(error));
    }
    tokens.reload();
  };

  return (
    <section className="wf-access__section" aria-labelledby="enrollment-title">
      <h2 id="enrollment-title">Enrollment tokens</h2>
      <p className="wf-access__lead">
        Single-use and expiring: an agent presents one once, with its certificate request, to join the fleet.
      </p>
      {minted ? (
        <SecretOnce
          title={`Enrollment token${minted.routerName ? ` for ${minted.routerName}` : ''}`}
          secret={minted.token}
          details={[
            { label: 'Controller (gRPC)', value: minted.grpcAddress },
            ...(minted.caFingerprint ? [{ label: 'CA fingerprint to pin', value: minted.caFingerprint }] : []),
          ]}
          onDismiss={() => setMinted(null)}
        />
      ) : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      {tokens.failure ? <ErrorNotice failure={tokens.failure} onRetry={tokens.reload} /> : null}
      {!tokens.data && tokens.loading ? <Loading what="Loading enrollment tokens" /> : null}
      {tokens.data ? (
        <div className="wf-table-wrap">
          <table className="wf-table">
            <caption className="wf-visually-hidden">Enrollment tokens</caption>
            <thead>
              <tr>
                <th scope="col">Router name</th>
                <th scope="col">Tags</th>
                <th scope="col">State</th>
                <th scope="col">Expires</th>
                <th scope="col">Created by</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.items.length === 0 ? (
                <tr>
                  <td colSpan={6}>No enrollment tokens.</td>
                </tr>
              ) : null}
              {tokens.data.items.map((token) => (
                <tr key={token.id}>
                  <th scope="row">{token.routerName ?? <span className="wf-access__muted">any name</span>}</th>
                  <td>{token.tags.join(', ') || '—'}</td>
                  <td>
                    <span
                      className={`wf-status wf-status--${token.state === 'active' ? 'online' : token.state === 'used' ? 'applied' : 'offline'}`}
                    >
                      {token.state}
                    </span>
                  </td>
                  <td>{shortTime(token.expiresAt)}</td>
                  <td>{token.createdBy}</td>
                  <td>
                    {token.state === 'active' ? (
                      <ConfirmButton
                        label="Revoke"
                        question="Revoke this enrollment token?"
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
      <CreateEnrollmentForm
        onCreated={(m) => {
          setMinted(m);
          tokens.reload();
        }}
      />
    </section>
  );
}

function CreateEnrollmentForm({ onCreated }: { onCreated: (minted: Minted) => void }) {
  const { api } = useSignedIn();
  const [routerName, setRouterName] = useState('');
  const [tagText, setTagText] = useState('');
  const [hours, setHours] = useState<number>(24);
  const [tagProblem, setTagProblem] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { tags, problem } = parseTags(tagText);
    setTagProblem(problem);
    setFailure(null);
    if (problem) return;
    try {
      const created = await unwrap(
        api.POST('/v1/enrollment-tokens', {
          body: {
            ...(routerName.trim() ? { routerName: routerName.trim() } : {}),
            ...(tags.length ? { tags } : {}),
            expiresInSeconds: hours * 3600,
          },
        }),
      );
      onCreated(created);
      setRouterName('');
      setTagText('');
    } catch (error) {
      setFailure(asFailure(error));
    }
  };

  return (
    <form
      className="wf-form wf-access__form"
      onSubmit={(e) => void submit(e)}
      aria-labelledby="create-enrollment-title"
    >
      <h3 id="create-enrollment-title">Create an enrollment token</h3>
      <Field label="Router name" hint="Optional: the enrolled router gets exactly this name.">
        <input
          autoComplete="off"
          spellCheck={false}
          value={routerName}
          onChange={(e) => setRouterName(e.target.value)}
        />
      </Field>
      <Field
        label="Tags"
        hint="Optional, separated by commas or spaces, e.g. site:lab group:canary."
        error={tagProblem}
      >
        <input autoComplete="off" spellCheck={false} value={tagText} onChange={(e) => setTagText(e.target.value)} />
      </Field>
      <Field label="Valid for">
        <select value={hours} onChange={(e) => setHours(Number(e.target.value))}>
          {ENROLLMENT_LIFETIME_HOURS.map((h) => (
            <option key={h} value={h}>
              {h < 24 ? `${h} hour` : h === 24 ? '1 day' : `${h / 24} days`}
            </option>
          ))}
        </select>
      </Field>
      {failure ? <ErrorNotice failure={failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary">
          Create enrollment token
        </button>
      </div>
    </form>
  );
}
