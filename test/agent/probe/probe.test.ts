/**
 * The capability probe on a 32-bit MIPS router (ath79, big-endian), which cannot run here:
 * the device side is a scripted transcript of what bpftool/wf-tcx answer on such a router
 * (OpenWrt transcripts: OpenWrt cannot run here). The point: MIPS32 is probed, not refused;
 * the big-endian object is what gets uploaded and loaded; an interpreter-only kernel (no JIT)
 * still counts as eBPF; a missing bpftool is reported by name. The real probe on this
 * machine's kernel runs in the SSH and on-router end-to-end tests.
 */
import { describe, expect, it } from 'vitest';
import type { CommandResult, RouterHost, RunOptions } from '../../../core/host/router-host.js';
import { probeCapabilities } from '../../../agent/probe/index.js';

class ScriptedMipsRouter implements RouterHost {
  readonly description = 'scripted ath79 router';
  readonly uploads = new Map<string, Buffer>();
  readonly commands: string[] = [];
  constructor(
    private readonly opts: {
      bpftool: boolean;
      jit: boolean;
      tcx: boolean;
      /** Kernel modules the cls_bpf attach check finds (default: both). */
      modules?: ('cls_bpf' | 'sch_ingress')[];
      firewall?: 'fw4' | 'fw3';
    },
  ) {}
  async run(argv: string[], _o?: RunOptions): Promise<CommandResult> {
    const cmd = argv.join(' ');
    this.commands.push(cmd);
    const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });
    if (argv[0] === 'bpftool' && !this.opts.bpftool) return { code: 127, stdout: '', stderr: 'sh: bpftool: not found' };
    if (cmd === 'bpftool version') return ok('bpftool v7.1.0\nusing libbpf v1.1\nfeatures:\n');
    if (argv[1] === 'mkdir') return ok('{}');
    if (argv[0] === 'bpftool' && argv[2] === 'load')
      return this.uploads.has(argv[3]!) ? ok() : { code: 255, stdout: '', stderr: 'Error: failed to open object file' };
    if (argv[0] === 'bpftool' && argv[2] === 'show')
      return ok(
        JSON.stringify({
          id: 17,
          type: 'sched_cls',
          jited: this.opts.jit,
          bytes_xlated: 1656,
          bytes_jited: this.opts.jit ? 2980 : 0,
        }),
      );
    if (argv[1] === 'probe')
      return this.opts.tcx
        ? ok('{"tcx":true}')
        : { code: 1, stdout: '{"error":"BPF_PROG_QUERY(TCX_EGRESS): Invalid argument","errno":22}', stderr: '' };
    if (argv[0] === 'uci' && argv[3] === 'firewall.@defaults[0]') return ok('defaults\n');
    const firewall = this.opts.firewall ?? 'fw4';
    if (cmd === `sh -c command -v ${firewall}`) return ok(`/sbin/${firewall}\n`);
    if (argv[0] === 'sh' && argv[2]?.startsWith('k=$(uname -r)')) {
      const module = /\/sys\/module\/(\w+)/.exec(argv[2])![1] as 'cls_bpf' | 'sch_ingress';
      return (this.opts.modules ?? ['cls_bpf', 'sch_ingress']).includes(module)
        ? ok()
        : { code: 1, stdout: '', stderr: '' };
    }
    if (argv[0] === 'rm') return ok();
    return { code: 127, stdout: '', stderr: `${argv[0]}: not found` };
  }
  async readFile(): Promise<string | null> {
    return null;
  }
  async readBinary(): Promise<Buffer | null> {
    return null;
  }
  async writeFile(path: string, data: string | Buffer): Promise<void> {
    this.uploads.set(path, Buffer.from(data));
  }
  async close(): Promise<void> {}
}

describe('capability probe on a MIPS32 big-endian router (OpenWrt transcripts: OpenWrt cannot run here)', () => {
  it('uploads and loads the bpfeb object; no JIT still means eBPF (interpreter); no TCX on 5.15', async () => {
    const host = new ScriptedMipsRouter({ bpftool: true, jit: false, tcx: false });
    const p = await probeCapabilities(host, { endian: 'big', helper: '/usr/sbin/wf-tcx' });
    const [path, obj] = [...host.uploads.entries()][0]!;
    expect(path).toMatch(/^\/tmp\/wrtfleet-probe-[0-9a-f]{8}\.o$/);
    expect(obj[5]).toBe(2); // ELFDATA2MSB: the big-endian build went to the big-endian router
    expect(host.commands).toContain(
      `bpftool prog load ${path} /sys/fs/bpf/wrtfleet-probe-${path.match(/probe-([0-9a-f]{8})/)![1]} type classifier`,
    );
    expect(p.flags).toMatchObject({ ebpf: true, tcx: false, softwareOffload: true });
    expect(p.reasons.ebpf).toMatch(/not JIT-compiled \(runs in the interpreter\)/);
    expect(p.reasons.tcx).toMatch(/no TCX: .*Invalid argument/);
    expect(p.details.ebpf).toMatchObject({ loaded: true, object: 'bpfeb', jited: false });
    // The pin and the upload are removed again.
    expect(host.commands.some((c) => c.startsWith('rm -f /sys/fs/bpf/wrtfleet-probe-') && c.includes(path))).toBe(true);
  });

  it('reports a missing bpftool by name instead of guessing', async () => {
    const p = await probeCapabilities(new ScriptedMipsRouter({ bpftool: false, jit: true, tcx: true }), {
      endian: 'big',
    });
    expect(p.flags.ebpf).toBe(false);
    expect(p.reasons.ebpf).toMatch(/bpftool is not installed \(OpenWrt: bpftool-minimal or bpftool-full\)/);
    expect(p.flags.tcx).toBe(false);
  });

  it('names a missing wf-tcx helper and where it was looked for', async () => {
    const host = new ScriptedMipsRouter({ bpftool: true, jit: true, tcx: true });
    const run = host.run.bind(host);
    host.run = async (argv) =>
      argv[0] === '/opt/none/wf-tcx' ? { code: 127, stdout: '', stderr: 'not found' } : run(argv);
    const p = await probeCapabilities(host, { endian: 'big', helper: '/opt/none/wf-tcx' });
    expect(p.flags.ebpf).toBe(false);
    expect(p.reasons.ebpf).toMatch(/wf-tcx helper is not on the router at \/opt\/none\/wf-tcx/);
  });

  it('21.02 MT7621 (simulated MIPS, kernel 5.4, fw3): a program that loads but cannot attach is no eBPF', async () => {
    const host = new ScriptedMipsRouter({
      bpftool: true,
      jit: false,
      tcx: false,
      modules: ['sch_ingress'],
      firewall: 'fw3',
    });
    const p = await probeCapabilities(host, { endian: 'little', helper: '/usr/sbin/wf-tcx' });
    expect(p.details.ebpf).toMatchObject({ loaded: true, object: 'bpfel' });
    expect(p.flags).toMatchObject({ ebpf: false, tcx: false, softwareOffload: true });
    expect(p.reasons.ebpf).toMatch(
      /loads, but without TCX it attaches with cls_bpf, and this kernel has no cls_bpf \(CONFIG_NET_CLS_BPF; OpenWrt package kmod-sched-bpf\)/,
    );
    expect(p.reasons.softwareOffload).toMatch(/fw3 present: offloading is an iptables FLOWOFFLOAD rule/);

    const withClsBpf = await probeCapabilities(
      new ScriptedMipsRouter({ bpftool: true, jit: false, tcx: false, firewall: 'fw3' }),
      { endian: 'little', helper: '/usr/sbin/wf-tcx' },
    );
    expect(withClsBpf.flags.ebpf).toBe(true);
    expect(withClsBpf.reasons.ebpf).toMatch(/cls_bpf and clsact are in the kernel/);
  });
});
