/**
 * The mipsel lab guest boots (Debian's 4kc-malta kernel under QEMU TCG) and is the router the
 * other lab checks assume: the guest-basics check holds on it, over the same SshHost the proxy
 * agent uses against dropbear. One boot for the whole file; a guest that cannot be built or
 * booted fails the test with the serial log's last lines, it never skips.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guestBasics } from '../../lab/checks/guest-basics.js';
import type { CheckResult } from '../../lab/checks/lab-check.js';
import { startGuest, serialLogTail, type Guest } from '../../lab/guest.js';
import { SshHost } from '../../core/host/ssh-host.js';

let guest: Guest | undefined;
let bootError: unknown;

beforeAll(async () => {
  try {
    // A cold image build downloads ~80 MB of .debs; a warm one is a cache hit.
    guest = await startGuest('mipsel', { jit: true, log: () => undefined });
  } catch (err) {
    bootError = err;
  }
}, 600_000);

afterAll(async () => {
  await guest?.stop();
}, 60_000);

function booted(): Guest {
  if (!guest) throw new Error(`the mipsel guest did not boot:\n${String((bootError as Error)?.message ?? bootError)}`);
  return guest;
}

describe('lab mipsel guest (real kernel under QEMU)', () => {
  it('boots to LAB-READY and announces its SSH host key', () => {
    const g = booted();
    expect(g.hostKeyFingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(g.image.manifest.kernelVersion).toMatch(/^6\.1\./);
    expect(g.bootSeconds).toBeLessThan(120);
  });

  it('passes guest-basics: kernel, byte order, JIT switch, bpffs, pings, TCP forwarded through it', async () => {
    const g = booted();
    let result: CheckResult;
    try {
      result = await guestBasics.run(g);
    } catch (err) {
      throw new Error(`guest-basics threw: ${(err as Error).message}\n--- serial log ---\n${serialLogTail(g)}`, {
        cause: err,
      });
    }
    const failed = (result.steps ?? []).filter((s) => !s.ok).map((s) => `${s.name}: ${s.detail}`);
    expect(failed, `${result.detail}\n--- serial log ---\n${serialLogTail(g)}`).toEqual([]);
    expect(result.ok).toBe(true);
    const names = (result.steps ?? []).map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['kernel', 'endianness', 'bpf_jit_enable', 'bpffs', 'lanPingsGuest', 'forwardedTcp']),
    );
    expect(result.steps?.find((s) => s.name === 'endianness')?.detail).toMatch(/^little-endian/);
    expect(result.numbers?.forwardedTcpMbps).toBeGreaterThan(0);
  }, 180_000);

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
