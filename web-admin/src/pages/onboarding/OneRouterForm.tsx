import { useEffect, useRef, useState, type FormEvent } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { CredentialInputs } from './CredentialInputs.js';
import type { StartedJob } from './JobsTable.js';
import { checkOnboarding, EMPTY_ONBOARDING_FIELDS, type OnboardingFields } from './onboarding-form.js';

/**
 * One router over SSH: address, login, credential, host-key pin, tags, placement. A retry opens
 * it filled with the failed job's target (`retrying`), the credential left for the operator.
 */
export function OneRouterForm({
  onStarted,
  retrying,
}: {
  onStarted(job: StartedJob): void;
  retrying?: { jobId: string; fields: OnboardingFields } | null;
}) {
  const { api } = useSignedIn();
  const [fields, setFields] = useState<OnboardingFields>(retrying?.fields ?? EMPTY_ONBOARDING_FIELDS);
  const form = useRef<HTMLFormElement>(null);
  // A retry brings the operator to the form, at the credential: the one thing left to give.
  useEffect(() => {
    if (!retrying) return;
    form.current?.scrollIntoView({ block: 'start' });
    form.current?.querySelector<HTMLElement>('input[type="password"], textarea')?.focus();
  }, [retrying]);
  const [tried, setTried] = useState(false);
  const check = checkOnboarding(fields);
  const error = (k: keyof OnboardingFields) => (tried && !check.ok ? (check.errors[k] ?? null) : null);
  const set = (patch: Partial<OnboardingFields>) => setFields((now) => ({ ...now, ...patch }));

  const start = useApiMutation(
    (body: Extract<typeof check, { ok: true }>['body']) => unwrap(api.POST('/v1/onboarding', { body })),
    {
      onSuccess: ({ jobId }) => {
        onStarted({ jobId, host: check.ok ? check.body.host : '', row: retrying ? 'retry' : 'one router' });
        // The secret leaves the form once sent; the rest stays for the next router.
        set({ password: '', privateKey: '', passphrase: '' });
        setTried(false);
      },
    },
  );
  const busy = start.pending;
  const failure = start.failure;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (check.ok) start.run(check.body);
  };

  return (
    <form ref={form} className="wf-panel wf-form" onSubmit={submit} noValidate aria-labelledby="one-router-title">
      <h2 id="one-router-title">{retrying ? `Retry onboarding ${retrying.fields.host}` : 'One router'}</h2>
      {retrying ? (
        <p className="wf-notice">
          Filled in from the failed job. Its SSH credential was not kept (it is sealed for one job only): enter it
          again.
        </p>
      ) : null}
      <div className="wf-selector__grid">
        <Field label="Host" hint="IP address or host name" error={error('host')}>
          <input value={fields.host} onChange={(e) => set({ host: e.target.value })} autoComplete="off" />
        </Field>
        <Field label="Port" error={error('port')}>
          <input inputMode="numeric" value={fields.port} onChange={(e) => set({ port: e.target.value })} />
        </Field>
        <Field label="User" error={error('user')}>
          <input value={fields.user} onChange={(e) => set({ user: e.target.value })} autoComplete="off" />
        </Field>
        <Field label="Placement" hint="auto: on the router with Node.js 20+, else the proxy">
          <select
            value={fields.placement}
            onChange={(e) => set({ placement: e.target.value as OnboardingFields['placement'] })}
          >
            <option value="auto">auto</option>
            <option value="on_router">on the router</option>
            <option value="proxy">proxy on the controller</option>
          </select>
        </Field>
      </div>
      <CredentialInputs value={fields} onChange={set} errors={tried && !check.ok ? check.errors : {}} />
      <div className="wf-selector__grid">
        <Field
          label="Host-key fingerprint pin"
          hint="SHA256:… from ssh-keygen -lf; empty pins the first key seen"
          error={error('fingerprint')}
        >
          <input
            value={fields.fingerprint}
            onChange={(e) => set({ fingerprint: e.target.value })}
            autoComplete="off"
            spellCheck={false}
          />
        </Field>
        <Field label="Tags" hint="comma-separated, e.g. site:lyon" error={error('tags')}>
          <input value={fields.tags} onChange={(e) => set({ tags: e.target.value })} autoComplete="off" />
        </Field>
        <Field label="Name" hint="empty derives it from the hardware" error={error('name')}>
          <input value={fields.name} onChange={(e) => set({ name: e.target.value })} autoComplete="off" />
        </Field>
      </div>
      <label className="wf-check">
        <input type="checkbox" checked={fields.install} onChange={(e) => set({ install: e.target.checked })} /> Install
        missing packages (opkg or apk) instead of stopping at them
      </label>
      {failure ? <ErrorNotice failure={failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary" disabled={busy}>
          Onboard router
        </button>
      </div>
    </form>
  );
}
