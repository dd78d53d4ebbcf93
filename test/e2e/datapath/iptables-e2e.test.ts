/**
 * The iptables fallback of fw3 routers (OpenWrt 19.07, 21.02), applied in a network namespace
 * with Debian's iptables, once per backend: iptables-legacy (x_tables, what OpenWrt 19.07 and
 * 21.02 run) and iptables-nft (the same rules through nf_tables' xt compat). Checked on the wire
 * like the nftables fallback: TTL on every IPv4 packet, no timestamp option in first SYNs, valid
 * checksums, the IPv6 hop limit; and idempotent and removable. A missing backend or kernel target
 * fails the suite; nothing is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalHost } from '../../../core/host/local-host.js';
import type { RewriteConfig } from '../../../core/programs.js';
import {
  applyIptables,
  IPT_CHAIN,
  iptablesRules,
  readIptables,
  readIptablesCounters,
  removeIptables,
} from '../../../agent/datapath/iptables.js';
import { Topology } from '../../support/datapath-topology.js';
import { checkWire } from '../../../lab/wire/wire-check.js';

/** The two rewrites iptables has targets for (IP-ID zeroing and the SYN window have none). */
const REWRITE: RewriteConfig = {
  programs: ['set_ip_ttl', 'clear_tcp_syn_ts'],
  ttl: 77,
  synWindow: 65535,
  ipv6HopLimit: true,
};
const topo = new Topology();
async function requireBackend(command: string): Promise<void> {
  const local = new LocalHost();
  for (const bin of [command, `${command}-save`, `${command}-restore`, command.replace('iptables', 'ip6tables')]) {
    const r = await local.run(['sh', '-c', `command -v ${bin}`]);
    if (r.code !== 0)
      throw new Error(`missing tool: ${bin} (Debian package iptables; test/system-deps.sh installs it)`);
  }
  // Each target once, in a throw-away chain: a kernel without it fails here, by name.
  const probe = [
    '*mangle',
    ':wf_probe - [0:0]',
    '-A wf_probe -j TTL --ttl-set 64',
    '-A wf_probe -p tcp -m tcp --tcp-flags SYN,ACK SYN -m comment --comment probe -j TCPOPTSTRIP --strip-options timestamp',
    'COMMIT',
    '',
  ].join('\n');
  const r = await topo.router.run([`${command}-restore`, '--noflush'], { input: probe });
  if (r.code !== 0)
    throw new Error(`missing kernel feature for ${command}: TTL/TCPOPTSTRIP/comment targets: ${r.stderr}`);
  await topo.router.run([command, '-t', 'mangle', '-F', 'wf_probe']);
  await topo.router.run([command, '-t', 'mangle', '-X', 'wf_probe']);
  const six = command.replace('iptables', 'ip6tables');
  const probe6 = ['*mangle', ':wf_probe - [0:0]', '-A wf_probe -m hl --hl-gt 1 -j HL --hl-set 64', 'COMMIT', ''].join(
    '\n',
  );
  const r6 = await topo.router.run([`${six}-restore`, '--noflush'], { input: probe6 });
  if (r6.code !== 0) throw new Error(`missing kernel feature for ${six}: hl match / HL target: ${r6.stderr}`);
  await topo.router.run([six, '-t', 'mangle', '-F', 'wf_probe']);
  await topo.router.run([six, '-t', 'mangle', '-X', 'wf_probe']);
}

beforeAll(async () => {
  await topo.create();
  await topo.addDefaultRoute();
  await topo.addIpv6();
  await topo.startIperfServer();
}, 120_000);

afterAll(async () => {
  for (const command of ['iptables-legacy', 'iptables-nft'])
    await removeIptables(topo.router, command).catch(() => undefined);
  await topo.destroy();
});

describe('iptables rules of the fallback', () => {
  it('refuses the rewrites iptables has no target for', () => {
    expect(() => iptablesRules({ ...REWRITE, programs: ['set_ip_id_zero', 'set_ip_ttl'] }, ['wan0'])).toThrow(
      /no iptables target for set_ip_id_zero/,
    );
    expect(iptablesRules(REWRITE, ['wan0'])).toEqual({
      ipv4: [
        '-o wan0 -m comment --comment wrtfleet:set_ip_ttl -j TTL --ttl-set 77',
        '-o wan0 -p tcp -m tcp --tcp-flags SYN,ACK SYN -m comment --comment wrtfleet:clear_tcp_syn_ts -j TCPOPTSTRIP --strip-options timestamp',
      ],
      ipv6: ['-o wan0 -m hl --hl-gt 1 -m hl --hl-lt 255 -m comment --comment wrtfleet:set_ip_ttl -j HL --hl-set 77'],
    });
  });
});

for (const command of ['iptables-legacy', 'iptables-nft']) {
  describe(`iptables fallback with ${command}`, () => {
    beforeAll(async () => {
      await requireBackend(command);
    }, 30_000);

    it('installs one chain per family for the eligible WAN only, idempotently', async () => {
      const a = await applyIptables(topo.router, { rewrite: REWRITE, iptables: command });
      expect(a.interfaces).toEqual(['wan0']);
      expect(a.changes).toEqual([`ipv4: mangle ${IPT_CHAIN} with 2 rules`, `ipv6: mangle ${IPT_CHAIN} with 1 rule`]);
      const live = await readIptables(topo.router, command);
      expect(live).toMatchObject({ present: true, interfaces: ['wan0'], rules: 3 });
      expect(live.ipv4?.hooked).toBe(true);
      expect(live.ipv6?.hooked).toBe(true);
      // The same plan again changes nothing (the counters stay).
      expect((await applyIptables(topo.router, { rewrite: REWRITE, iptables: command })).changes).toEqual([]);
      const save = await topo.router.run([`${command}-save`, '-t', 'mangle']);
      expect(save.stdout.match(new RegExp(`-A POSTROUTING -j ${IPT_CHAIN}`, 'g'))).toHaveLength(1);
      // A different TTL rewrites the chain in place.
      const b = await applyIptables(topo.router, { rewrite: { ...REWRITE, ttl: 78 }, iptables: command });
      expect(b.changes).toEqual([`ipv4: mangle ${IPT_CHAIN} with 2 rules`, `ipv6: mangle ${IPT_CHAIN} with 1 rule`]);
      expect((await readIptables(topo.router, command)).ipv4?.rules.join('\n')).toContain('--ttl-set 78');
      await applyIptables(topo.router, { rewrite: REWRITE, iptables: command });
    });

    for (const offloadOn of [false, true]) {
      it(`wire: offload ${offloadOn ? 'on' : 'off'}: TTL on every packet, no timestamp in first SYNs, valid checksums`, async () => {
        await topo.offload(topo.ns.router, 'wan0', offloadOn);
        await topo.offload(topo.ns.client, 'cl0', false);
        const pkts = await topo.capture(() => topo.traffic(), `ipt-${command}-${offloadOn}`);
        const rep = checkWire(pkts, { ttl: REWRITE.ttl, noSynTimestamp: true, allowPartialChecksum: offloadOn });
        expect(rep.violations).toEqual([]);
        expect(rep.firstSyns).toBeGreaterThanOrEqual(4);
        expect(rep.icmp).toBe(6);
        if (!offloadOn) expect(rep.fullChecksums).toBe(rep.tcp);
        // IP-ID zeroing is not something this fallback does: the IDs on the wire are the stack's.
        expect(checkWire(pkts, { idZero: true }).violations.length).toBeGreaterThan(0);
      });
    }

    it('wire: the IPv6 hop limit is rewritten by HL --hl-set, neighbour discovery (255) is not', async () => {
      expect(await topo.ping6HopLimits()).toEqual([REWRITE.ttl, REWRITE.ttl, REWRITE.ttl]);
      expect(await topo.neighbourDiscoveryWorks()).toBe(true);
    });

    it('the rules counted the packets they rewrote', async () => {
      const save = await topo.router.run([`${command}-save`, '-c', '-t', 'mangle']);
      const counts = [
        ...save.stdout.matchAll(new RegExp(`^\\[(\\d+):\\d+\\] -A ${IPT_CHAIN} .*wrtfleet:(\\w+)`, 'gm')),
      ];
      expect(counts.map((m) => m[2])).toEqual(['set_ip_ttl', 'clear_tcp_syn_ts']);
      expect(Number(counts[0]![1])).toBeGreaterThan(100);
      expect(Number(counts[1]![1])).toBeGreaterThanOrEqual(4);
      // What telemetry reports: per program, the IPv6 hop-limit rule added to the TTL one.
      const telemetry = await readIptablesCounters(topo.router, command);
      expect([...telemetry.keys()]).toEqual(['set_ip_ttl', 'clear_tcp_syn_ts']);
      expect(telemetry.get('set_ip_ttl')).toBeGreaterThan(Number(counts[0]![1]));
    });

    it('remove unhooks and deletes both chains; a second remove is a no-op', async () => {
      expect(await removeIptables(topo.router, command)).toEqual({ removed: true });
      expect(await readIptables(topo.router, command)).toMatchObject({ present: false, rules: 0 });
      const save = await topo.router.run([`${command}-save`, '-t', 'mangle']);
      expect(save.stdout).not.toContain(IPT_CHAIN);
      expect(await removeIptables(topo.router, command)).toEqual({ removed: false });
      const pk = await topo.capture(
        async () => void (await topo.router.run(['ping', '-c', '2', '-i', '0.2', '10.213.2.2'])),
        `ipt-${command}-removed`,
      );
      expect(checkWire(pk, { ttl: 64 }).violations).toEqual([]);
    });
  });
}
