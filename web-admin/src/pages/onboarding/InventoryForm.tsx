import { useState, type FormEvent } from 'react';
import { ApiFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { CredentialInputs } from './CredentialInputs.js';
import type { StartedJob } from './JobsTable.js';
import { credentialErrors, EMPTY_ONBOARDING_FIELDS, inventoryKind, type OnboardingFields } from './onboarding-form.js';

type Credential = Pick<OnboardingFields, 'auth' | 'password' | 'privateKey' | 'passphrase'>;

/** The largest file sent: the controller's own limit on the inventory text. */
const MAX_BYTES = 1_000_000;

/**
 * An inventory file (the CSV or YAML `wrtfleet onboard --inventory` reads) and one
 * credential for all its routers. The controller checks every row before starting anything:
 * a bad row refuses the whole upload, naming each bad row.
 */
export function InventoryForm({ onStarted }: { onStarted(jobs: StartedJob[]): void }) {
  const { api } = useSignedIn();
  const [file, setFile] = useState<File | null>(null);
  const [credential, setCredential] = useState<Credential>(EMPTY_ONBOARDING_FIELDS);
  const [tried, setTried] = useState(false);
  const secretErrors = credentialErrors(credential);
  const fileError = !file
    ? 'choose an inventory file'
    : !inventoryKind(file.name)
      ? `${file.name} is not CSV or YAML (.csv, .yaml, .yml)`
      : file.size > MAX_BYTES
        ? `${file.name} is larger than 1 MB`
        : null;

  const upload = useApiMutation(
    async ({ file, credential }: { file: File; credential: Credential }) => {
      const text = await file.text();
      if (text.trim() === '') throw new ApiFailure(400, 'invalid_request', `${file.name} is empty`);
      const body =
        credential.auth === 'password'
          ? { filename: file.name, text, password: credential.password }
          : {
              filename: file.name,
              text,
              privateKey: credential.privateKey,
              ...(credential.passphrase ? { passphrase: credential.passphrase } : {}),
            };
      return unwrap(api.POST('/v1/onboarding/inventory', { body }));
    },
    {
      onSuccess: ({ jobs }) => {
        onStarted(jobs.map((j) => ({ jobId: j.jobId, host: j.host, row: j.row })));
        setCredential((now) => ({ ...now, password: '', privateKey: '', passphrase: '' }));
        setTried(false);
      },
    },
  );
  const busy = upload.pending;
  const failure = upload.failure;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    upload.reset();
    if (fileError || Object.keys(secretErrors).length || !file) return;
    upload.run({ file, credential });
  };

  return (
    <form className="wf-panel wf-form" onSubmit={submit} noValidate aria-labelledby="inventory-title">
      <h2 id="inventory-title">Inventory upload</h2>
      <p className="wf-muted">
        CSV with a header row (host, port, user, fingerprint, tags, placement, install, identity, name) or YAML (a list,
        or defaults and routers). Its passwordFile and keyFile columns are for the CLI; the credential below is used for
        every router.
      </p>
      <Field label="Inventory file" error={tried ? fileError : null}>
        <input
          type="file"
          accept=".csv,.yaml,.yml,text/csv,application/yaml"
          onChange={(e) => {
            setFile(e.target.files?.[0] ?? null);
            upload.reset();
          }}
        />
      </Field>
      <CredentialInputs
        value={credential}
        onChange={(patch) => setCredential((now) => ({ ...now, ...patch }))}
        errors={tried ? secretErrors : {}}
      />
      {failure ? <ErrorNotice failure={failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary" disabled={busy}>
          Upload and onboard
        </button>
      </div>
    </form>
  );
}
