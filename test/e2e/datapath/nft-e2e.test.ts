/**
 * The nftables fallback must pass the same wire checks as the eBPF chain, be idempotent
 * and removable, and ensureRewrite must fall back to it when eBPF cannot be attached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRAM_NAMES, type RewriteConfig } from '../../../core/programs.js';
import { applyNft, NFT_TABLE, removeNft } from '../../../agent/datapath/nft.js';
import { ensureRewrite, removeRewrite } from '../../../agent/datapath/index.js';
import { requireFeatures } from '../../support/datapath-features.js';
import { Topology } from '../../support/datapath-topology.js';
import { checkWire } from '../../../lab/wire/wire-check.js';

const REWRITE: RewriteConfig = { programs: [...PROGRAM_NAMES], ttl: 77, synWindow: 29200, ipv6HopLimit: true };
const topo = new Topology();

async function gsoMaxSegs(): Promise<number> {
  return JSON.parse((await topo.router.run(['ip', '-d', '-j', 'link', 'show', 'wan0'])).stdout)[0]
    .gso_max_segs as number;
}

async function tables(): Promise<string> {
  return (await topo.router.run(['nft', 'list', 'tables'])).stdout;
}

beforeAll(async () => {
  await topo.create();
  await requireFeatures(topo, ['nftables']);
  await topo.addDefaultRoute();
  await topo.addIpv6();
  await topo.startIperfServer();
}, 120_000);

afterAll(async () => {
  await removeRewrite(topo.router, { pinRoot: topo.pinRoot }).catch(() => undefined);
  await topo.destroy();
});

describe('nftables fallback', () => {
  it('installs one table for the eligible WAN only, idempotently', async () => {
    const a = await applyNft(topo.router, { rewrite: REWRITE });
    expect(a.interfaces).toEqual(['wan0']);
    expect(a.ruleset).toContain('oifname "wan0"');
    expect(a.ruleset).not.toContain('queue');
    const b = await applyNft(topo.router, { rewrite: REWRITE });
    // The same rules, and the table was not re-created: no counter went back. Counters may go
    // up in between (the new link sends IPv6 router solicitations and MLD reports on its own;
    // a clean CI run once counted one of them between the two reads).
    const rules = (ruleset: string) => ruleset.replace(/counter packets \d+ bytes \d+/g, 'counter');
    const packets = (ruleset: string) => [...ruleset.matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
    expect(rules(b.ruleset)).toBe(rules(a.ruleset));
    expect(packets(b.ruleset)).toHaveLength(packets(a.ruleset).length);
    packets(b.ruleset).forEach((n, i) => expect(n).toBeGreaterThanOrEqual(packets(a.ruleset)[i]!));
    expect((await tables()).match(new RegExp(`table inet ${NFT_TABLE}`, 'g'))!.length).toBe(1);
    expect(await gsoMaxSegs()).toBe(1);
    // a different plan replaces the table (the same one is left alone, above)
    const c = await applyNft(topo.router, { rewrite: { ...REWRITE, ttl: REWRITE.ttl + 1 } });
    expect(c.ruleset).toContain(`ip ttl set ${REWRITE.ttl + 1}`);
    expect(c.ruleset).not.toContain(`ip ttl set ${REWRITE.ttl} `);
    await applyNft(topo.router, { rewrite: REWRITE });
  });

  for (const offloadOn of [false, true]) {
    it(`wire: offload ${offloadOn ? 'on' : 'off'} passes the same checks as the eBPF chain`, async () => {
      await topo.offload(topo.ns.router, 'wan0', offloadOn);
      await topo.offload(topo.ns.client, 'cl0', false); // see ebpf-e2e.test.ts
      const pkts = await topo.capture(() => topo.traffic(), `nft-${offloadOn}`);
      const rep = checkWire(pkts, {
        ttl: REWRITE.ttl,
        idZero: true,
        synWindow: REWRITE.synWindow,
        noSynTimestamp: true,
        allowPartialChecksum: offloadOn,
      });
      expect(rep.violations).toEqual([]);
      expect(rep.firstSyns).toBeGreaterThanOrEqual(4);
      expect(rep.icmp).toBe(6);
      if (!offloadOn) expect(rep.fullChecksums).toBe(rep.tcp);
    });
  }

  it('wire: the IPv6 hop limit is rewritten, neighbour discovery (255) is not', async () => {
    await applyNft(topo.router, { rewrite: REWRITE });
    expect(await topo.ping6HopLimits()).toEqual([REWRITE.ttl, REWRITE.ttl, REWRITE.ttl]);
    expect(await topo.neighbourDiscoveryWorks()).toBe(true);
  });

  it('counters in the ruleset moved (the rules, not the stack, did the work)', async () => {
    const list = (await topo.router.run(['nft', 'list', 'table', 'inet', NFT_TABLE])).stdout;
    const counts = [...list.matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
    expect(counts.length).toBe(5); // id, ttl, hop limit, window, timestamp
    expect(counts[0]).toBeGreaterThan(100); // ip id
    expect(counts[1]).toBeGreaterThan(100); // ttl
  });

  it('remove deletes the table and restores gso_max_segs; a second remove is a no-op', async () => {
    expect(await removeNft(topo.router)).toEqual({ removed: true });
    expect(await tables()).not.toContain(NFT_TABLE);
    expect(await gsoMaxSegs()).toBe(65535);
    expect(await removeNft(topo.router)).toEqual({ removed: false });
  });
});

describe('ensureRewrite', () => {
  it('falls back to nftables when eBPF cannot be attached, and says why', async () => {
    const ev = await ensureRewrite(topo.router, {
      rewrite: REWRITE,
      pinRoot: topo.pinRoot,
      helper: '/nonexistent/wf-tcx',
    });
    expect(ev.mode).toBe('nftables');
    expect(ev.ebpfError).toMatch(/wf-tcx/);
    const pk = await topo.capture(
      async () => void (await topo.router.run(['ping', '-c', '2', '-i', '0.2', '10.213.2.2'])),
      'fallback',
    );
    expect(checkWire(pk, { ttl: REWRITE.ttl, idZero: true }).violations).toEqual([]);
    expect(pk.length).toBe(2);
  });

  it('prefers eBPF and removes an earlier fallback table', async () => {
    const ev = await ensureRewrite(topo.router, { rewrite: REWRITE, pinRoot: topo.pinRoot });
    expect(ev.mode).toBe('tcx');
    expect(await tables()).not.toContain(NFT_TABLE);
    await removeRewrite(topo.router, { pinRoot: topo.pinRoot });
    expect(await gsoMaxSegs()).toBe(65535);
  });

  it('with fallback disabled, an eBPF failure is an error', async () => {
    await expect(
      ensureRewrite(topo.router, {
        rewrite: REWRITE,
        pinRoot: topo.pinRoot,
        helper: '/nonexistent/wf-tcx',
        fallback: false,
      }),
    ).rejects.toThrow(/wf-tcx/);
    expect(await tables()).not.toContain(NFT_TABLE);
  });
});
