/**
 * A scripted OpenWrt router for the commands this machine cannot run (uci, fw4 or fw3, OpenWrt's
 * nft with flowtables, fw3's iptables FLOWOFFLOAD rule): it keeps the two firewall defaults as
 * uci would (committed values plus pending changes) and answers `nft list flowtables` (fw4),
 * `iptables-save -t filter` (fw3) and `/etc/init.d/firewall reload` with the transcripts in
 * test/agent/apply/transcripts/<model>/. A model whose transcripts hold iptables-save listings
 * runs fw3. Everything else (files, captured commands for facts) comes from the fixture tree of
 * the same model (fixtures/routers, or fixtures/routers-extra for the fw3 releases).
 * Tests using it say "(OpenWrt transcripts: OpenWrt cannot run here)" in their names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixtureHost } from '../../agent/sim/fixture-host.js';
import { defaultFixturesDir, extraFixturesDir } from '../../agent/sim/fixtures.js';
import type { CommandResult, RouterHost, RunOptions } from '../../core/host/router-host.js';
import { collectFacts } from '../../core/facts/index.js';
import { resolvePlan, type PlanRouter } from '../../core/plan.js';
import { validateProfileSpec, type ProfileSpec } from '../../core/profile-spec.js';

export const TRANSCRIPTS = join(process.cwd(), 'test/agent/apply/transcripts');
export const FLEET_FIXTURES = defaultFixturesDir();

type Mode = 'off' | 'software' | 'hardware';

export class OpenWrtTranscriptHost implements RouterHost {
  readonly description: string;
  readonly fixture: FixtureHost;
  committed: Record<'flow_offloading' | 'flow_offloading_hw', string | null> = {
    flow_offloading: null,
    flow_offloading_hw: null,
  };
  pending: Record<string, string | null> = {};
  /** Changes someone else left uncommitted (uci changes shows them). */
  foreignPending: string | null = null;
  /** What fw4 installed at the last reload. */
  live: Mode = 'off';
  readonly log: string[][] = [];
  /** Makes one command fail: return a result to answer instead of the transcript. */
  fault: ((argv: string[]) => CommandResult | undefined) | undefined;

  /** fw3 (iptables FLOWOFFLOAD) where the model's transcripts are iptables-save listings, else fw4. */
  readonly firewall: 'fw4' | 'fw3';

  constructor(readonly model: string) {
    this.description = `openwrt-transcripts ${model}`;
    const fleet = join(FLEET_FIXTURES, model);
    this.fixture = new FixtureHost(existsSync(fleet) ? fleet : join(extraFixturesDir(), model));
    this.firewall = existsSync(join(TRANSCRIPTS, model, 'iptables-save-filter.off.txt')) ? 'fw3' : 'fw4';
  }

  private transcript(name: string): string {
    return readFileSync(join(TRANSCRIPTS, this.model, name), 'utf8');
  }

  private value(option: 'flow_offloading' | 'flow_offloading_hw'): string | null {
    const key = `firewall.@defaults[0].${option}`;
    return key in this.pending ? this.pending[key]! : this.committed[option];
  }

  private configured(): Mode {
    if (this.committed.flow_offloading !== '1') return 'off';
    return this.committed.flow_offloading_hw === '1' ? 'hardware' : 'software';
  }

  async run(argv: string[], options?: RunOptions): Promise<CommandResult> {
    this.log.push(argv);
    const forced = this.fault?.(argv);
    if (forced) return forced;
    const ok = (stdout = '', stderr = ''): CommandResult => ({ code: 0, stdout, stderr });
    const [cmd, ...args] = argv;
    if (cmd === 'uci') {
      const a = args.filter((x) => x !== '-q');
      if (a[0] === 'get' && a[1] === 'firewall.@defaults[0]') return ok('defaults\n');
      if (a[0] === 'get') {
        const option = a[1]!.replace('firewall.@defaults[0].', '') as 'flow_offloading' | 'flow_offloading_hw';
        const v = this.value(option);
        return v === null ? { code: 1, stdout: '', stderr: '' } : ok(`${v}\n`);
      }
      if (a[0] === 'set') {
        const [key, value] = a[1]!.split('=');
        this.pending[key!] = value!;
        return ok();
      }
      if (a[0] === 'delete') {
        this.pending[a[1]!] = null;
        return ok();
      }
      if (a[0] === 'changes') {
        const ours = Object.entries(this.pending).map(([k, v]) =>
          v === null
            ? `-${k.replace('@defaults[0]', 'cfg01e63d')}`
            : `${k.replace('@defaults[0]', 'cfg01e63d')}='${v}'`,
        );
        const foreign = this.foreignPending ? [this.foreignPending.trim()] : [];
        return ok([...foreign, ...ours].map((l) => `${l}\n`).join(''));
      }
      if (a[0] === 'commit' && a[1] === 'firewall') {
        for (const [k, v] of Object.entries(this.pending))
          this.committed[k.replace('firewall.@defaults[0].', '') as 'flow_offloading'] = v;
        this.pending = {};
        return ok();
      }
      if (a[0] === 'revert') {
        this.pending = {};
        return ok();
      }
      return { code: 1, stdout: '', stderr: `uci: Invalid argument` };
    }
    if (argv.join(' ') === 'sh -c command -v fw4')
      return this.firewall === 'fw4' ? ok('/sbin/fw4\n') : { code: 1, stdout: '', stderr: '' };
    if (argv.join(' ') === 'sh -c command -v fw3')
      return this.firewall === 'fw3' ? ok('/sbin/fw3\n') : { code: 1, stdout: '', stderr: '' };
    if (cmd === '/etc/init.d/firewall' && args[0] === 'reload' && this.firewall === 'fw3') {
      // fw3 writes the FLOWOFFLOAD rule as configured, --hw included, whatever the SoC can do.
      const mode = this.configured();
      this.live = mode;
      return { code: 0, stdout: '', stderr: mode === 'off' ? '' : this.transcript(`firewall-reload.${mode}.txt`) };
    }
    if (cmd === 'iptables-save' && args.join(' ') === '-t filter' && this.firewall === 'fw3')
      return ok(this.transcript(`iptables-save-filter.${this.live}.txt`));
    if (cmd === '/etc/init.d/firewall' && args[0] === 'reload') {
      const mode = this.configured();
      const out = mode === 'off' ? '' : this.transcript(`firewall-reload.${mode}.txt`);
      // The hardware transcript of a router without an offload engine lists a software flowtable.
      const listing = this.transcript(`nft-list-flowtables.${mode}.txt`);
      this.live = listing.includes('flags offload') ? 'hardware' : mode === 'off' ? 'off' : 'software';
      return { code: 0, stdout: '', stderr: out };
    }
    if (cmd === 'nft' && args.join(' ') === 'list flowtables')
      return ok(this.transcript(`nft-list-flowtables.${this.live}.txt`));
    // An idle router as the datapath sees it: no pins of ours, no default route over our
    // devices, no wrtfleet table. (The datapath itself is tested for real elsewhere.)
    if (cmd?.endsWith('wf-tcx') && args[0] === 'ls') return ok('{"entries":[]}\n');
    if (cmd?.endsWith('wf-tcx') && (args[0] === 'rm' || args[0] === 'mkdir')) return ok('{}\n');
    if (cmd === 'ip' && args.join(' ') === '-d -j link show') return ok('[]\n');
    if (cmd === 'ip' && args.join(' ') === '-4 -j route show default table all') return ok('[]\n');
    if (cmd === 'nft' && args.includes('wrtfleet'))
      return { code: 1, stdout: '', stderr: 'Error: No such file or directory\nlist table inet wrtfleet\n' };
    if (cmd === 'fw4' && args[0] === 'print') return ok(this.transcript(`fw4-print.${this.configured()}.txt`));
    void options;
    return this.fixture.run(argv);
  }

  async readFile(path: string): Promise<string | null> {
    if (path === '/proc/net/nf_conntrack') {
      // Per offload mode where the model has them (fw3 shows the engine's work only here), else one for all.
      for (const name of [`proc-net-nf_conntrack.${this.live}.txt`, 'proc-net-nf_conntrack.txt'])
        if (existsSync(join(TRANSCRIPTS, this.model, name))) return this.transcript(name);
      return '';
    }
    return this.fixture.readFile(path);
  }

  readBinary(path: string): Promise<Buffer | null> {
    return this.fixture.readBinary(path);
  }

  async writeFile(path: string): Promise<void> {
    throw new Error(`transcript host: unexpected write to ${path}`);
  }

  async close(): Promise<void> {}
}

/** A profile with every rewrite off: offload alone. */
export const NO_REWRITE = {
  l3Rewrite: { ttl: { enabled: false }, ipid: false, tcpts: false, tcpwin: { enabled: false } },
};

/** A validated profile spec; invalid input is a test error. */
export function validSpec(input: unknown): ProfileSpec {
  const v = validateProfileSpec(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.spec;
}

/** The plan for a transcript router's own facts, with capabilities overridden where given. */
export async function transcriptPlan(
  host: OpenWrtTranscriptHost,
  s: ProfileSpec,
  override: PlanRouter['capabilities'] = undefined,
) {
  return resolvePlan(s, { facts: await collectFacts(host.fixture), capabilities: override });
}
