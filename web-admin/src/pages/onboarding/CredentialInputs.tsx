import { Field } from '../../components/Field.js';
import type { OnboardingFields } from './onboarding-form.js';

type Credential = Pick<OnboardingFields, 'auth' | 'password' | 'privateKey' | 'passphrase'>;

/** Password or private key (with its passphrase): the secret is sent once and sealed for the job, never shown again. */
export function CredentialInputs({
  value,
  onChange,
  errors,
}: {
  value: Credential;
  onChange(patch: Partial<Credential>): void;
  errors: Partial<Record<'password' | 'privateKey', string>>;
}) {
  return (
    <fieldset className="wf-selector">
      <legend>SSH credential</legend>
      <div className="wf-inline-fields">
        <label className="wf-check">
          <input
            type="radio"
            name="auth"
            checked={value.auth === 'password'}
            onChange={() => onChange({ auth: 'password' })}
          />{' '}
          Use a password
        </label>
        <label className="wf-check">
          <input type="radio" name="auth" checked={value.auth === 'key'} onChange={() => onChange({ auth: 'key' })} />{' '}
          Use a private key
        </label>
      </div>
      {value.auth === 'password' ? (
        <Field label="Password" error={errors.password}>
          <input
            type="password"
            autoComplete="off"
            value={value.password}
            onChange={(e) => onChange({ password: e.target.value })}
          />
        </Field>
      ) : (
        <>
          <Field label="Private key" hint="PEM or OpenSSH, as in ~/.ssh/id_ed25519" error={errors.privateKey}>
            <textarea
              rows={5}
              spellCheck={false}
              value={value.privateKey}
              onChange={(e) => onChange({ privateKey: e.target.value })}
            />
          </Field>
          <Field label="Key passphrase" hint="only if the key has one">
            <input
              type="password"
              autoComplete="off"
              value={value.passphrase}
              onChange={(e) => onChange({ passphrase: e.target.value })}
            />
          </Field>
        </>
      )}
    </fieldset>
  );
}
