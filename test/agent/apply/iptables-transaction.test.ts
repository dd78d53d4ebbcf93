/**
 * The transactional apply and rollback of an iptables-fallback plan, with the real transaction
 * code and Debian's iptables (both backends) in network namespaces. The plan is the one
 * resolvePlan makes for the 19.07 Archer C7's facts (fw3, kernel 4.14, no nft); its offload half
 * is left out (this host has no uci; test/agent/apply/fw3-transcripts.unit.test.ts covers it), so the
 * transaction only touches the datapath, on the namespace's wan0.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyTransaction, type AppliedRecord } from '../../../agent/apply/transaction.js';
import { readIptables, removeIptables } from '../../../agent/datapath/iptables.js';
import { FixtureHost } from '../../../agent/sim/fixture-host.js';
import { extraFixturesDir } from '../../../agent/sim/fixtures.js';
import { collectFacts, type RouterFacts } from '../../../core/facts/index.js';
import { computePlanHash, resolvePlan, type Plan } from '../../../core/plan.js';
import { validateProfileSpec, type ProfileSpec } from '../../../core/profile-spec.js';
import { Topology } from '../../support/datapath-topology.js';
import { checkWire } from '../../../lab/wire/wire-check.js';

const topo = new Topology();
let facts: RouterFacts;

function spec(ttl: number): ProfileSpec {
  const v = validateProfileSpec({
    l3Rewrite: { ttl: { value: ttl }, ipv6HopLimit: true },
    flowOffload: { mode: 'off' },
  });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.spec;
}

/** The C7's plan without its offload half (no uci in a namespace). */
function planOf(s: ProfileSpec): Plan {
  const { planHash: _hash, ...plan } = resolvePlan(s, { facts });
  const local = { ...plan, offload: { ...plan.offload, uci: null } };
  return { ...local, planHash: computePlanHash(local) };
}

beforeAll(async () => {
  facts = await collectFacts(new FixtureHost(join(extraFixturesDir(), 'tplink-archer-c7-v2-19.07-ar71xx')));
  await topo.create();
  await topo.addDefaultRoute();
}, 120_000);

afterAll(async () => {
  for (const command of ['iptables-legacy', 'iptables-nft'])
    await removeIptables(topo.router, command).catch(() => undefined);
  await topo.destroy();
});

for (const command of ['iptables-legacy', 'iptables-nft']) {
  describe(`transaction with the iptables fallback (${command}; the router's facts are a simulated MIPS 19.07 C7's)`, () => {
    const paths = { pinRoot: topo.pinRoot, iptables: command };
    let applied: AppliedRecord;

    it('applies the plan: TTL and TCPOPTSTRIP rules on wan0, verified by read-back and on the wire', async () => {
      const s = spec(77);
      const plan = planOf(s);
      expect(plan.datapath.mode).toBe('iptables');
      expect(plan.datapath.unavailable?.map((u) => u.program)).toEqual(['set_ip_id_zero', 'set_tcp_syn_window']);
      const out = await applyTransaction(topo.router, plan, null, { paths });
      expect(out.status, JSON.stringify(out.evidence)).toBe('applied');
      expect((out.evidence as { datapath: { iptables: unknown } }).datapath.iptables).toEqual({
        chain: 'mangle wrtfleet_egress',
        interfaces: ['wan0'],
        rules: 3,
      });
      applied = {
        profile: 'c7',
        revision: 1,
        planHash: plan.planHash,
        spec: s,
        plan,
        appliedAt: new Date().toISOString(),
      };
      const pk = await topo.capture(
        async () => void (await topo.router.run(['ping', '-c', '2', '-i', '0.2', '10.213.2.2'])),
        `ipt-tx-${command}`,
      );
      expect(pk.length).toBe(2);
      expect(checkWire(pk, { ttl: 77 }).violations).toEqual([]);
    });

    it('a failure after the datapath step rolls back to the applied revision', async () => {
      const out = await applyTransaction(topo.router, planOf(spec(78)), applied, {
        paths,
        afterDatapath: async () => {
          expect((await readIptables(topo.router, command)).ipv4?.rules.join('\n')).toContain('--ttl-set 78');
          throw new Error('injected failure after the datapath step');
        },
      });
      expect(out.status).toBe('failed');
      if (out.status !== 'failed') return;
      expect(out.error).toMatch(/injected failure/);
      expect(out.restore).toEqual({ ok: true, problems: [] });
      const live = await readIptables(topo.router, command);
      expect(live.ipv4?.rules.join('\n')).toContain('--ttl-set 77');
      expect(live.ipv4?.rules.join('\n')).not.toContain('--ttl-set 78');
    });

    it('a plan without rewrites removes the chains, and the next one with nothing before restores to nothing', async () => {
      const none = validateProfileSpec({
        l3Rewrite: { ttl: { enabled: false }, ipid: false, tcpts: false, tcpwin: { enabled: false } },
      });
      if (!none.ok) throw new Error('spec');
      const out = await applyTransaction(topo.router, planOf(none.spec), applied, { paths });
      expect(out.status).toBe('applied');
      expect(await readIptables(topo.router, command)).toMatchObject({ present: false });

      // From nothing, a failing apply leaves nothing.
      const failed = await applyTransaction(topo.router, planOf(spec(77)), null, {
        paths,
        afterDatapath: async () => {
          throw new Error('injected failure');
        },
      });
      expect(failed.status === 'failed' && failed.restore).toEqual({ ok: true, problems: [] });
      expect(await readIptables(topo.router, command)).toMatchObject({ present: false });
    });
  });
}
