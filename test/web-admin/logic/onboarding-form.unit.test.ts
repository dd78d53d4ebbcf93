import { describe, expect, it } from 'vitest';
import {
  checkOnboarding,
  credentialErrors,
  EMPTY_ONBOARDING_FIELDS,
  inventoryKind,
} from '../../../web-admin/src/pages/onboarding/onboarding-form.js';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n';
const PIN = `SHA256:${'A'.repeat(43)}`;

describe('the one-router onboarding form', () => {
  it('builds the API body: defaults, tags split, the key with its passphrase', () => {
    expect(checkOnboarding({ ...EMPTY_ONBOARDING_FIELDS, host: ' 10.0.0.1 ', password: 'pw', tags: 'a, b a' })).toEqual(
      {
        ok: true,
        body: { host: '10.0.0.1', port: 22, user: 'root', password: 'pw', tags: ['a', 'b'], placement: 'auto' },
      },
    );
    const key = checkOnboarding({
      ...EMPTY_ONBOARDING_FIELDS,
      host: 'r1.lab',
      auth: 'key',
      privateKey: KEY,
      passphrase: 'pp',
      password: 'ignored',
      fingerprint: PIN,
      placement: 'proxy',
      name: ' edge ',
    });
    expect(key).toEqual({
      ok: true,
      body: {
        host: 'r1.lab',
        port: 22,
        user: 'root',
        privateKey: KEY,
        passphrase: 'pp',
        hostKeyFingerprint: PIN,
        placement: 'proxy',
        name: 'edge',
      },
    });
  });

  it('names each bad field', () => {
    expect(
      checkOnboarding({
        ...EMPTY_ONBOARDING_FIELDS,
        host: 'a b',
        port: '70000',
        user: 'ro ot',
        fingerprint: 'MD5:x',
        tags: 'ok, bad!',
      }),
    ).toEqual({
      ok: false,
      errors: {
        host: 'an IP address or host name',
        port: '1 to 65535',
        user: 'letters, digits, ".", "_" and "-"',
        password: 'the SSH password is required',
        fingerprint: 'SHA256:… as ssh-keygen -lf prints it',
        tags: '"bad!" is not a tag (letters, digits and . _ : / -)',
      },
    });
    expect(credentialErrors({ auth: 'key', password: '', privateKey: 'ssh-ed25519 AAAA', passphrase: '' })).toEqual({
      privateKey: 'not a PEM or OpenSSH private key',
    });
    expect(credentialErrors({ auth: 'key', password: '', privateKey: ' ', passphrase: '' })).toEqual({
      privateKey: 'the private key is required',
    });
  });

  it('knows an inventory by its file name, as the controller does', () => {
    expect(inventoryKind('a.CSV')).toBe('csv');
    expect(inventoryKind('a.yml')).toBe('yaml');
    expect(inventoryKind('a.yaml')).toBe('yaml');
    expect(inventoryKind('a.json')).toBeNull();
    expect(inventoryKind('csv')).toBeNull();
  });
});
