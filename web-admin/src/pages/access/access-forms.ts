/**
 * The Access page's form logic, without DOM types: what a new account, API token or
 * enrollment token must be before it is sent. The controller checks the same again; this is
 * so the operator reads the problem beside the field before a round trip.
 */
import { API_ENUMS, type ApiEnum } from '../../api/api-enums.generated.js';

export const ROLES = API_ENUMS.Role;
export type Role = ApiEnum<'Role'>;

export const TOKEN_SCOPES = API_ENUMS.Scope;
export type TokenScope = ApiEnum<'Scope'>;

/** The shortest password the controller accepts (server/auth/password-hash.ts). */
export const MIN_PASSWORD_LENGTH = 12;
const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const TAG = /^[A-Za-z0-9][A-Za-z0-9._:/=-]{0,63}$/;
// Control characters are refused by the controller as well.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `At least ${MIN_PASSWORD_LENGTH} characters (${password.length} now).`;
  if (password.length > 1024) return 'At most 1024 characters.';
  if (CONTROL.test(password)) return 'No control characters.';
  return null;
}

export function validateNewAccount(input: {
  name: string;
  role: string;
  password: string;
}): FieldErrors<'name' | 'role' | 'password'> {
  const errors: FieldErrors<'name' | 'role' | 'password'> = {};
  const name = input.name.trim();
  if (!name) errors.name = 'Give the account a name.';
  else if (!ACCOUNT_NAME.test(name))
    errors.name = 'Letters, digits and . _ @ -, starting with a letter or digit, at most 64.';
  if (!(ROLES as readonly string[]).includes(input.role)) errors.role = 'Choose read, write or admin.';
  const password = passwordProblem(input.password);
  if (password) errors.password = password;
  return errors;
}

/** Token lifetimes the form offers, as the API's expiresInSeconds (null: it never expires). */
export const TOKEN_LIFETIMES = [
  { label: 'Never expires', seconds: null },
  { label: '1 day', seconds: 86_400 },
  { label: '30 days', seconds: 30 * 86_400 },
  { label: '90 days', seconds: 90 * 86_400 },
  { label: '1 year', seconds: 365 * 86_400 },
] as const;

export function validateNewApiToken(input: {
  name: string;
  scopes: readonly string[];
}): FieldErrors<'name' | 'scopes'> {
  const errors: FieldErrors<'name' | 'scopes'> = {};
  const name = input.name.trim();
  if (!name) errors.name = 'Name the token after what uses it (a script, a CI job).';
  else if (name.length > 100 || CONTROL.test(name)) errors.name = 'At most 100 characters, no control characters.';
  if (input.scopes.length === 0) errors.scopes = 'Give it at least one scope.';
  return errors;
}

/** The body of POST /v1/tokens from the form. */
export function apiTokenRequest(input: {
  name: string;
  scopes: readonly TokenScope[];
  lifetimeSeconds: number | null;
}) {
  return {
    name: input.name.trim(),
    scopes: TOKEN_SCOPES.filter((s) => input.scopes.includes(s)),
    ...(input.lifetimeSeconds ? { expiresInSeconds: input.lifetimeSeconds } : {}),
  };
}

/** Tags typed as "a, b c": split on commas and spaces, each checked; duplicates dropped. */
export function parseTags(text: string): { tags: string[]; problem: string | null } {
  const tags = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  const bad = tags.filter((t) => !TAG.test(t));
  if (bad.length > 0) return { tags, problem: `Not a tag: ${bad.join(', ')} (letters, digits and . _ : / = -).` };
  if (tags.length > 32) return { tags, problem: 'At most 32 tags.' };
  return { tags, problem: null };
}

/** Enrollment token lifetimes in hours; the API takes seconds. */
export const ENROLLMENT_LIFETIME_HOURS = [1, 24, 24 * 7] as const;
