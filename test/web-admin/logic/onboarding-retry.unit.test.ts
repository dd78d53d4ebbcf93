import { describe, expect, it } from 'vitest';
import {
  checkOnboarding,
  EMPTY_ONBOARDING_FIELDS,
  retryFields,
} from '../../../web-admin/src/pages/onboarding/onboarding-form.js';

const PIN = `SHA256:${'B'.repeat(43)}`;

describe("a failed onboarding's Retry: the form filled with its target", () => {
  it('takes the stored target, the key it pinned on first use, and leaves the credential empty', () => {
    const fields = retryFields(
      {
        host: '10.0.0.9',
        port: 2222,
        user: 'admin',
        authType: 'privateKey',
        tags: ['site:lab', 'group:b'],
        placement: 'proxy',
        install: true,
        name: 'lab-1',
      },
      { hostKeyFingerprint: PIN, hostKeyPinnedBy: 'first use' } as never,
    );
    expect(fields).toEqual({
      ...EMPTY_ONBOARDING_FIELDS,
      host: '10.0.0.9',
      port: '2222',
      user: 'admin',
      auth: 'key',
      fingerprint: PIN,
      tags: 'site:lab, group:b',
      placement: 'proxy',
      name: 'lab-1',
      install: true,
    });
    expect(fields.password + fields.privateKey + fields.passphrase).toBe('');
    // Nothing is sent until the credential is given again.
    expect(checkOnboarding(fields)).toMatchObject({ ok: false, errors: { privateKey: 'the private key is required' } });
    expect(checkOnboarding({ ...fields, auth: 'password', password: 'pw' })).toEqual({
      ok: true,
      body: {
        host: '10.0.0.9',
        port: 2222,
        user: 'admin',
        password: 'pw',
        hostKeyFingerprint: PIN,
        tags: ['site:lab', 'group:b'],
        placement: 'proxy',
        name: 'lab-1',
        install: true,
      },
    });
  });

  it("prefers the operator's own pin, and falls back to the form's defaults for what is missing or odd", () => {
    const own = `SHA256:${'C'.repeat(43)}`;
    expect(retryFields({ host: 'r1.lab', hostKeyFingerprint: own }, { hostKeyFingerprint: PIN }).fingerprint).toBe(own);
    expect(retryFields({ host: 'r1.lab', placement: 'on-router', tags: 'x', port: '22' }, null)).toEqual({
      ...EMPTY_ONBOARDING_FIELDS,
      host: 'r1.lab',
    });
  });
});
