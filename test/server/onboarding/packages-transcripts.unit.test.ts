/**
 * The onboarding package step against transcripts of opkg (24.10) and apk (25.12) output
 * (OpenWrt transcripts: OpenWrt cannot run here). A scripted RouterHost answers the package
 * commands with test/server/onboarding/transcripts/ and keeps the installed list, so an install
 * really changes what the next `list` prints and the step's re-check is exercised.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RouterFacts } from '../../../core/facts/index.js';
import type { CommandResult, RouterHost } from '../../../core/host/router-host.js';
import { FixtureHost } from '../../../agent/sim/fixture-host.js';
import { extraFixturesDir } from '../../../agent/sim/fixtures.js';
import { collectFacts } from '../../../core/facts/index.js';
import { installPackages, managerFor, PackageError, planPackages } from '../../../server/onboarding/packages.js';

const T = (name: string) => readFileSync(join(process.cwd(), 'test/server/onboarding/transcripts', name), 'utf8');

class PackageTranscriptHost implements RouterHost {
  readonly description = 'openwrt package transcripts';
  readonly log: string[] = [];
  list: string;
  constructor(
    readonly manager: 'opkg' | 'apk',
    readonly online: boolean,
    /** What `opkg install` prints (the 24.10 transcript unless given). */
    readonly installTranscript = 'opkg-install.ok.txt',
  ) {
    this.list = manager === 'opkg' ? T('opkg-list-installed.24.10.txt') : T('apk-list-installed.25.12.txt');
  }
  async run(argv: string[]): Promise<CommandResult> {
    const cmd = argv.join(' ');
    this.log.push(cmd);
    const ok = (stdout: string): CommandResult => ({ code: 0, stdout, stderr: '' });
    if (cmd === 'opkg list-installed' || cmd === 'apk list --installed') return ok(this.list);
    if (cmd === 'opkg update')
      return this.online ? ok(T('opkg-update.ok.txt')) : { code: 1, stdout: '', stderr: T('opkg-update.offline.txt') };
    if (cmd === 'apk update')
      return this.online ? ok(T('apk-update.ok.txt')) : { code: 2, stdout: T('apk-update.offline.txt'), stderr: '' };
    if (argv[0] === 'opkg' && argv[1] === 'install') {
      const out = T(this.installTranscript);
      for (const m of out.matchAll(/^Installing (\S+) \((\S+)\)/gm))
        if (argv.includes(m[1]!)) this.list += `${m[1]} - ${m[2]}\n`;
      return ok(out);
    }
    if (argv[0] === 'apk' && argv[1] === 'add') {
      const out = T('apk-add.ok.txt');
      for (const m of out.matchAll(/Installing (\S+) \((\S+)\)/g))
        if (argv.includes(m[1]!)) this.list += `${m[1]}-${m[2]} mipsel_24kc {x} (GPL-2.0) [installed]\n`;
      return ok(out);
    }
    return { code: 127, stdout: '', stderr: `${argv[0]}: not found` };
  }
  async readFile(): Promise<string | null> {
    return null;
  }
  async readBinary(): Promise<Buffer | null> {
    return null;
  }
  async writeFile(): Promise<void> {}
  async close(): Promise<void> {}
}

const facts = (version: string, manager: 'opkg' | 'apk' | null) =>
  ({ openwrt: { release: version }, packages: { manager } }) as unknown as RouterFacts;

describe('package step (OpenWrt transcripts: OpenWrt cannot run here)', () => {
  it('24.10 with opkg: tc-tiny is not enough; reports the exact missing list', async () => {
    const host = new PackageTranscriptHost('opkg', true);
    const plan = await planPackages(host, facts('24.10.4', 'opkg'));
    expect(plan).toEqual({ manager: 'opkg', present: {}, missing: ['tc-bpf', 'kmod-sched-bpf', 'bpftool-minimal'] });
    expect(host.log).toEqual(['opkg list-installed']);
  });

  it('24.10 install: opkg update && opkg install, then verified installed', async () => {
    const host = new PackageTranscriptHost('opkg', true);
    const plan = await planPackages(host, facts('24.10.4', 'opkg'));
    const done = await installPackages(host, 'opkg', plan.missing);
    expect(done.installed).toEqual(['tc-bpf', 'kmod-sched-bpf', 'bpftool-minimal']);
    expect(host.log).toEqual([
      'opkg list-installed',
      'opkg update',
      'opkg install tc-bpf kmod-sched-bpf bpftool-minimal',
      'opkg list-installed',
    ]);
    expect((await planPackages(host, facts('24.10.4', 'opkg'))).missing).toEqual([]);
  });

  it('24.10 without internet: a clear no-internet error, nothing installed', async () => {
    const host = new PackageTranscriptHost('opkg', false);
    const err = await installPackages(host, 'opkg', ['tc-bpf']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageError);
    expect((err as PackageError).kind).toBe('no-internet');
    expect((err as Error).message).toMatch(
      /cannot reach its package feeds \(no internet access\?\).*Failed to download the package list/,
    );
    expect(host.log).not.toContain('opkg install tc-bpf');
  });

  it('25.12 with apk: tc-full satisfies tc; installs the rest with apk add', async () => {
    const host = new PackageTranscriptHost('apk', true);
    expect(managerFor(facts('25.12.0', null))).toBe('apk');
    const plan = await planPackages(host, facts('25.12.0', 'apk'));
    expect(plan).toEqual({
      manager: 'apk',
      present: { 'tc-full': '6.15.0-r1' },
      missing: ['kmod-sched-bpf', 'bpftool-minimal'],
    });
    await installPackages(host, 'apk', plan.missing);
    expect(host.log).toContain('apk add kmod-sched-bpf bpftool-minimal');
    expect((await planPackages(host, facts('25.12.0', 'apk'))).missing).toEqual([]);
  });

  it('25.12 without internet: apk network error is reported as no internet', async () => {
    const host = new PackageTranscriptHost('apk', false);
    await expect(installPackages(host, 'apk', ['kmod-sched-bpf'])).rejects.toThrow(
      /no internet access\?.*network error \(check Internet connection and firewall\)/,
    );
  });

  it('not OpenWrt: no package manager step', async () => {
    expect(
      await planPackages(new PackageTranscriptHost('opkg', true), {
        openwrt: null,
        packages: { manager: null },
      } as unknown as RouterFacts),
    ).toEqual({ manager: null, present: {}, missing: [] });
  });

  it('19.07 C7 (fw3, kernel 4.14, simulated MIPS): no eBPF tooling (4.14 cannot load our programs), kmod-ipt-offload present, the iptables fallback’s targets missing', async () => {
    const facts = await collectFacts(new FixtureHost(join(extraFixturesDir(), 'tplink-archer-c7-v2-19.07-ar71xx')));
    const host = new PackageTranscriptHost('opkg', true);
    host.list = readFileSync(
      join(process.cwd(), 'test/agent/apply/transcripts/tplink-archer-c7-v2-19.07-ar71xx/opkg-list-installed.txt'),
      'utf8',
    );
    expect(await planPackages(host, facts)).toEqual({
      manager: 'opkg',
      present: { 'kmod-ipt-offload': '4.14.275-1' },
      missing: ['iptables-mod-ipopt'],
    });
  });

  it('21.02 MT7621 (fw3, kernel 5.4, simulated MIPS): installs tc, the eBPF tooling and kmod-ipt-offload', async () => {
    const facts = await collectFacts(
      new FixtureHost(join(extraFixturesDir(), 'xiaomi-mi-router-4a-gigabit-21.02-mt7621')),
    );
    const host = new PackageTranscriptHost('opkg', true, 'opkg-install.21.02.txt');
    // The fixture's list without kmod-ipt-offload: a 21.02 image where offloading was never set up.
    host.list = readFileSync(
      join(extraFixturesDir(), 'xiaomi-mi-router-4a-gigabit-21.02-mt7621/commands/opkg-list-installed'),
      'utf8',
    ).replace(/^kmod-ipt-offload .*\n/m, '');
    const plan = await planPackages(host, facts);
    expect(plan.missing).toEqual(['tc', 'kmod-sched-bpf', 'bpftool-minimal', 'kmod-ipt-offload']);
    const done = await installPackages(host, 'opkg', plan.missing);
    expect(done.installed).toEqual(plan.missing);
    expect(host.log).toContain('opkg install tc kmod-sched-bpf bpftool-minimal kmod-ipt-offload');
    expect((await planPackages(host, facts)).missing).toEqual([]);
  });
});
