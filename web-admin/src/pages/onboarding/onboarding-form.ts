/**
 * The single-router onboarding form as typed, checked with the API's rules
 * (server/routes/v1/onboarding/index.ts) so each field says what is wrong before anything is sent.
 */

export interface OnboardingFields {
  host: string;
  port: string;
  user: string;
  auth: 'password' | 'key';
  password: string;
  privateKey: string;
  passphrase: string;
  fingerprint: string;
  tags: string;
  placement: 'auto' | 'on_router' | 'proxy';
  name: string;
  /** Install the packages the plan needs that the router lacks (opkg/apk), instead of failing on them. */
  install: boolean;
}

export const EMPTY_ONBOARDING_FIELDS: OnboardingFields = {
  host: '',
  port: '22',
  user: 'root',
  auth: 'password',
  password: '',
  privateKey: '',
  passphrase: '',
  fingerprint: '',
  tags: '',
  placement: 'auto',
  name: '',
  install: false,
};

export interface OnboardingRequest {
  host: string;
  port: number;
  user: string;
  password?: string;
  privateKey?: string;
  passphrase?: string;
  hostKeyFingerprint?: string;
  tags?: string[];
  placement: 'auto' | 'on_router' | 'proxy';
  name?: string;
  install?: boolean;
}

export type OnboardingCheck =
  { ok: true; body: OnboardingRequest } | { ok: false; errors: Partial<Record<keyof OnboardingFields, string>> };

const HOST = /^[A-Za-z0-9.:_[\]-]{1,253}$/;
const USER = /^[A-Za-z0-9._-]{1,64}$/;
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}=?$/;
const TAG = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/;
const PRIVATE_KEY = /^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]+-----END [A-Z0-9 ]*PRIVATE KEY-----\s*$/;

/** A credential on its own (the inventory upload sends one for every router). */
export function credentialErrors(
  fields: Pick<OnboardingFields, 'auth' | 'password' | 'privateKey' | 'passphrase'>,
): Partial<Record<'password' | 'privateKey', string>> {
  if (fields.auth === 'password') return fields.password === '' ? { password: 'the SSH password is required' } : {};
  if (fields.privateKey.trim() === '') return { privateKey: 'the private key is required' };
  if (!PRIVATE_KEY.test(fields.privateKey.trim())) return { privateKey: 'not a PEM or OpenSSH private key' };
  return {};
}

export function checkOnboarding(fields: OnboardingFields): OnboardingCheck {
  const errors: Partial<Record<keyof OnboardingFields, string>> = {};
  const host = fields.host.trim();
  if (!host) errors.host = "the router's address is required";
  else if (!HOST.test(host)) errors.host = 'an IP address or host name';
  const port = Number(fields.port);
  if (!/^\d+$/.test(fields.port.trim()) || port < 1 || port > 65535) errors.port = '1 to 65535';
  const user = fields.user.trim();
  if (!USER.test(user)) errors.user = 'letters, digits, ".", "_" and "-"';
  Object.assign(errors, credentialErrors(fields));
  const fingerprint = fields.fingerprint.trim();
  if (fingerprint && !FINGERPRINT.test(fingerprint)) errors.fingerprint = 'SHA256:… as ssh-keygen -lf prints it';
  const tags = [...new Set(fields.tags.split(/[,\s]+/).filter(Boolean))];
  const badTag = tags.find((t) => !TAG.test(t));
  if (badTag) errors.tags = `"${badTag}" is not a tag (letters, digits and . _ : / -)`;
  else if (tags.length > 32) errors.tags = 'at most 32 tags';
  if (fields.name.length > 128) errors.name = 'at most 128 characters';
  if (Object.keys(errors).length) return { ok: false, errors };
  return {
    ok: true,
    body: {
      host,
      port,
      user,
      ...(fields.auth === 'password'
        ? { password: fields.password }
        : { privateKey: fields.privateKey, ...(fields.passphrase ? { passphrase: fields.passphrase } : {}) }),
      ...(fingerprint ? { hostKeyFingerprint: fingerprint } : {}),
      ...(tags.length ? { tags } : {}),
      placement: fields.placement,
      ...(fields.name.trim() ? { name: fields.name.trim() } : {}),
      ...(fields.install ? { install: true } : {}),
    },
  };
}

/** What a job stored of its request (GET /v1/jobs/{id} `input`: never the secret), as far as the form reads it. */
export interface StoredOnboarding {
  host?: unknown;
  port?: unknown;
  user?: unknown;
  authType?: unknown;
  hostKeyFingerprint?: unknown;
  tags?: unknown;
  placement?: unknown;
  install?: unknown;
  name?: unknown;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The form of a retry: the failed job's target as it was asked for, and the host key it saw
 * (pinned, so the retry talks to the same router). The credential is not kept with a job (it
 * travelled sealed in the queue payload only), so it must be entered again.
 */
export function retryFields(
  input: StoredOnboarding,
  result: { hostKeyFingerprint?: unknown } | null,
): OnboardingFields {
  const placement = text(input.placement);
  return {
    ...EMPTY_ONBOARDING_FIELDS,
    host: text(input.host),
    port: typeof input.port === 'number' ? String(input.port) : EMPTY_ONBOARDING_FIELDS.port,
    user: text(input.user) || EMPTY_ONBOARDING_FIELDS.user,
    auth: input.authType === 'privateKey' ? 'key' : 'password',
    fingerprint: text(input.hostKeyFingerprint) || text(result?.hostKeyFingerprint),
    tags: Array.isArray(input.tags) ? input.tags.filter((t) => typeof t === 'string').join(', ') : '',
    placement: placement === 'on_router' || placement === 'proxy' ? placement : 'auto',
    name: text(input.name),
    install: input.install === true,
  };
}

/** The inventory formats the controller reads, by file name; anything else is refused before upload. */
export function inventoryKind(fileName: string): 'csv' | 'yaml' | null {
  if (/\.csv$/i.test(fileName)) return 'csv';
  if (/\.ya?ml$/i.test(fileName)) return 'yaml';
  return null;
}
