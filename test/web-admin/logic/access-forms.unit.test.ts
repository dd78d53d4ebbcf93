import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apiTokenRequest,
  parseTags,
  passwordProblem,
  validateNewAccount,
  validateNewApiToken,
} from '../../../web-admin/src/pages/access/access-forms.js';
import { MIN_PASSWORD_LENGTH } from '../../../server/auth/password-hash.js';

describe('the Access page forms', () => {
  it('asks for the password length the controller enforces, counting what was typed', () => {
    expect(passwordProblem('x'.repeat(MIN_PASSWORD_LENGTH))).toBeNull();
    expect(passwordProblem('x'.repeat(MIN_PASSWORD_LENGTH - 1))).toBe('At least 12 characters (11 now).');
    expect(passwordProblem('long enough but\u0007bell')).toBe('No control characters.');
    expect(passwordProblem('y'.repeat(1025))).toBe('At most 1024 characters.');
  });

  it('names every wrong field of a new account, and none of a right one', () => {
    expect(validateNewAccount({ name: ' alice ', role: 'write', password: 'twelve chars' })).toEqual({});
    expect(validateNewAccount({ name: '', role: 'root', password: 'short' })).toEqual({
      name: 'Give the account a name.',
      role: 'Choose read, write or admin.',
      password: 'At least 12 characters (5 now).',
    });
    expect(validateNewAccount({ name: '-dash', role: 'read', password: 'twelve chars' }).name).toMatch(/starting/);
    expect(validateNewAccount({ name: 'a'.repeat(65), role: 'read', password: 'twelve chars' }).name).toBeDefined();
  });

  it('accepts exactly the account names the controller accepts', () => {
    const server = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;
    fc.assert(
      fc.property(fc.string({ maxLength: 70 }), (name) => {
        const accepted = !validateNewAccount({ name, role: 'read', password: 'twelve chars' }).name;
        const trimmed = name.trim();
        expect(accepted).toBe(trimmed.length >= 1 && trimmed.length <= 64 && server.test(trimmed));
      }),
    );
  });

  it('builds the API token request: scopes in their order, no expiry for "never"', () => {
    expect(validateNewApiToken({ name: '  ', scopes: [] })).toEqual({
      name: 'Name the token after what uses it (a script, a CI job).',
      scopes: 'Give it at least one scope.',
    });
    expect(apiTokenRequest({ name: ' ci ', scopes: ['write', 'read'], lifetimeSeconds: null })).toEqual({
      name: 'ci',
      scopes: ['read', 'write'],
    });
    expect(apiTokenRequest({ name: 'ci', scopes: ['enroll'], lifetimeSeconds: 86_400 })).toEqual({
      name: 'ci',
      scopes: ['enroll'],
      expiresInSeconds: 86_400,
    });
  });

  it('splits tags on commas and spaces, drops repeats, names the bad ones', () => {
    expect(parseTags(' site:lab, group:canary site:lab ')).toEqual({
      tags: ['site:lab', 'group:canary'],
      problem: null,
    });
    expect(parseTags('')).toEqual({ tags: [], problem: null });
    expect(parseTags('ok, -bad, wor$e').problem).toBe('Not a tag: -bad, wor$e (letters, digits and . _ : / = -).');
  });
});
