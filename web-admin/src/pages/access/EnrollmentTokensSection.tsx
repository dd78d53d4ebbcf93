import { useState, type FormEvent } from 'react';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiMutation, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
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

type EnrollmentToken =
  ApiPaths['/v1/enrollment-tokens']['get']['responses'][200]['content']['application/json']['items'][number];

const stateTone = (state: string) => (state === 'active' ? 'online' : state === 'used' ? 'applied' : 'offline');

/** Single-use enrollment tokens an agent trades for its certificate: list, create (shown once), revoke. */
export function EnrollmentTokensSection() {
  const { api } = useSignedIn();
  const tokens = useApiQuery(queryKeys.enrollmentTokens, () => unwrap(api.GET('/v1/enrollment-tokens')));
  const [minted, setMinted] = useState<Minted | null>(null);
  const revoke = useApiMutation(
    (id: string) => unwrap(api.DELETE('/v1/enrollment-tokens/{id}', { params: { path: { id } } })),
    { invalidates: [queryKeys.enrollmentTokens] },
  );
  const columns: Column<EnrollmentToken>[] = [
    {
      id: 'router',
      header: 'Router name',
      rowHeader: true,
      sortValue: (t) => t.routerName,
      cell: (t) => t.routerName ?? <span className="wf-access__muted">any name</span>,
    },
    { id: 'tags', header: 'Tags', cell: (t) => t.tags.join(', ') || '—' },
    {
      id: 'state',
      header: 'State',
      sortValue: (t) => t.state,
      cell: (t) => <span className={`wf-status wf-status--${stateTone(t.state)}`}>{t.state}</span>,
    },
    { id: 'expires', header: 'Expires', sortValue: (t) => t.expiresAt, cell: (t) => shortTime(t.expiresAt) },
    { id: 'by', header: 'Created by', sortValue: (t) => t.createdBy, cell: (t) => t.createdBy },
    {
      id: 'actions',
      header: 'Actions',
      cell: (t) =>
        t.state === 'active' ? (
          <ConfirmButton
            label="Revoke"
            question="Revoke this enrollment token?"
            onConfirm={() => revoke.runAsync(t.id)}
          />
        ) : null,
    },
  ];

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
      {revoke.failure ? <ErrorNotice failure={revoke.failure} /> : null}
      <DataTable
        rows={tokens.data?.items ?? []}
        columns={columns}
        rowKey={(t) => t.id}
        caption="Enrollment tokens"
        empty={<p className="wf-muted">No enrollment tokens.</p>}
        failure={tokens.failure}
        onRetry={tokens.retry}
        loading={tokens.loading}
        loadingWhat="Loading enrollment tokens"
      />
      <CreateEnrollmentForm onCreated={setMinted} />
    </section>
  );
}

function CreateEnrollmentForm({ onCreated }: { onCreated: (minted: Minted) => void }) {
  const { api } = useSignedIn();
  const [routerName, setRouterName] = useState('');
  const [tagText, setTagText] = useState('');
  const [hours, setHours] = useState<number>(24);
  const [tagProblem, setTagProblem] = useState<string | null>(null);
  // The new token is listed at once: the create invalidates the list.
  const create = useApiMutation(
    (tags: string[]) =>
      unwrap(
        api.POST('/v1/enrollment-tokens', {
          body: {
            ...(routerName.trim() ? { routerName: routerName.trim() } : {}),
            ...(tags.length ? { tags } : {}),
            expiresInSeconds: hours * 3600,
          },
        }),
      ),
    {
      invalidates: [queryKeys.enrollmentTokens],
      onSuccess: (created) => {
        onCreated(created);
        setRouterName('');
        setTagText('');
      },
    },
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { tags, problem } = parseTags(tagText);
    setTagProblem(problem);
    create.reset();
    if (!problem) create.run(tags);
  };

  return (
    <form className="wf-form wf-access__form" onSubmit={submit} aria-labelledby="create-enrollment-title">
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
      {create.failure ? <ErrorNotice failure={create.failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary" disabled={create.pending}>
          Create enrollment token
        </button>
      </div>
    </form>
  );
}
