/**
 * The little-endian guest (Debian 12's 4kc-malta kernel and mipsel userland; ramips MT7621
 * routers are mipsel_24kc): every lab check but the agent's (mips.test.ts runs that on a mipsel
 * guest of its own), plus what the proxy agent's SSH relies on.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { SshHost } from '../../core/host/ssh-host.js';
import { startGuest } from '../../lab/guest.js';
import { describeLabChecks, SEPARATE_GUEST_CHECKS } from './lab-checks.js';

describeLabChecks('mipsel', { checks: (name) => !SEPARATE_GUEST_CHECKS.includes(name) }, (booted) => {
  it('refuses a connection that presents another host key (pinning works against dropbear)', async () => {
    const g = booted();
    const wrong = new SshHost({
      host: g.sshHost,
      port: g.sshPort,
      username: 'root',
      privateKey: readFileSync(g.privateKeyPath),
      hostKeyFingerprint: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      connectTimeoutMs: 30_000,
    });
    await expect(wrong.connect()).rejects.toMatchObject({ kind: 'host-key' });
    await wrong.close();
  }, 60_000);

  it('refuses a second boot of the same arch while this one runs', async () => {
    booted();
    await expect(startGuest('mipsel', { log: () => undefined })).rejects.toThrow(/already running/);
  });
});
