import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { afterAll, describe, expect, it } from 'vitest';
import { labKeyPair } from '../../lab/image-cache.js';

/**
 * The two lab files boot their guests at once, each asking for the lab's key: on a cold cache
 * both made one, and a guest could boot with one key while the file held the other (the proxy
 * agent, which reads the file, was then refused by the guest).
 */
describe('the lab key pair on a cold cache', () => {
  const cache = mkdtempSync(join(tmpdir(), 'wflab-key-'));
  const before = process.env.WRTFLEET_LAB_CACHE;
  process.env.WRTFLEET_LAB_CACHE = cache;
  afterAll(() => {
    if (before === undefined) delete process.env.WRTFLEET_LAB_CACHE;
    else process.env.WRTFLEET_LAB_CACHE = before;
    rmSync(cache, { recursive: true, force: true });
  });

  it('is one key for every concurrent caller, the one in the file, with a .pub to match', async () => {
    const pairs = await Promise.all(Array.from({ length: 8 }, () => labKeyPair()));
    const onDisk = readFileSync(pairs[0]!.privateKeyPath, 'utf8');
    const parsed = ssh2.utils.parseKey(onDisk);
    if (parsed instanceof Error) throw parsed;
    const blob = (Array.isArray(parsed) ? parsed[0]! : parsed).getPublicSSH().toString('base64');
    for (const p of pairs) {
      expect(p.privateKey).toBe(onDisk);
      expect(p.publicKeyBlob).toBe(blob);
    }
    expect(readFileSync(`${pairs[0]!.privateKeyPath}.pub`, 'utf8').split(' ')[1]).toBe(blob);
    // The losers' files are gone: only the key and its .pub stay.
    expect(readdirSync(join(cache, 'ssh')).sort()).toEqual(['id_ed25519', 'id_ed25519.pub']);
    // A later call finds the same key.
    expect((await labKeyPair()).publicKeyBlob).toBe(blob);
  });
});
