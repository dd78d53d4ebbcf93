/**
 * The diagnostic bundle (Command KIND_DIAGNOSTICS): the tail of the system log and of the
 * kernel log, the firewall ruleset, and the state of our BPF programs, each collected through
 * the RouterHost, so the on-router agent, a proxy over SSH and a simulated router (its fixture
 * tree's captures) run the same code. A source that fails leaves its section with the reason;
 * the others are still collected.
 *
 * A lazy section of the agent bundle (agent/packaging/sections.ts): an idle router never runs
 * it, so it is loaded with `await import()` when a bundle is asked for.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import { boundBundle, type DiagnosticSectionText } from '../../core/diagnostic-bundle.js';
import type { SectionSource } from './section-source.js';

/** A real router's BPF section, loaded with the rest of the bundle's collectors (a lazy section). */
export { bpfStatus } from './bpf-status.js';

/** Lines of the system log asked for: more than a section holds rarely helps. */
export const LOG_LINES = 500;

export interface DiagnosticsOptions {
  /** The BPF section: the real datapath's state, or a simulated router's account of its own. */
  bpfStatus: () => Promise<SectionSource>;
}

const missing = (code: number | null) => code === 127;

/** Runs the first of `candidates` the router has; a missing binary (exit 127) falls through to the next. */
async function firstAvailable(host: RouterHost, candidates: string[][]): Promise<SectionSource> {
  const tried: string[] = [];
  for (const argv of candidates) {
    const r = await host.run(argv);
    const command = argv.join(' ');
    if (r.code === 0) return { command, text: r.stdout, error: '' };
    const why = `${command}: ${missing(r.code) ? 'not found' : (r.stderr || r.stdout).trim().split('\n').slice(-2).join(' | ')} (exit ${r.code ?? 'none'})`;
    tried.push(why);
    if (!missing(r.code)) return { command, text: r.stdout, error: why };
  }
  return { command: candidates.map((c) => c.join(' ')).join(' || '), text: '', error: tried.join('; ') };
}

export async function collectDiagnostics(
  host: RouterHost,
  options: DiagnosticsOptions,
): Promise<DiagnosticSectionText[]> {
  const [logread, dmesg, nftables, bpf] = await Promise.all([
    // OpenWrt's logread (ubox); a Linux host with systemd keeps its log in the journal instead.
    firstAvailable(host, [
      ['logread', '-l', String(LOG_LINES)],
      ['journalctl', '-n', String(LOG_LINES), '--no-pager'],
    ]),
    firstAvailable(host, [['dmesg']]),
    // fw4 routers (22.03 and later) run nftables; fw3 ones iptables.
    firstAvailable(host, [['nft', 'list', 'ruleset'], ['iptables-save']]),
    options.bpfStatus().catch((err: unknown) => ({ command: 'bpf status', text: '', error: (err as Error).message })),
  ]);
  const sections = { logread, dmesg, nftables, bpf };
  return boundBundle(
    Object.entries(sections).map(([name, s]) => ({
      name,
      command: s.command,
      text: s.text,
      truncated: false,
      error: s.error,
    })),
  );
}

/** One line per section for CommandResult.output: what the bundle holds and what is missing. */
export function diagnosticsSummary(sections: DiagnosticSectionText[]): string {
  const size = (n: number) => (n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);
  return [
    `diagnostic bundle: ${sections.length} sections`,
    ...sections.map(
      (s) =>
        `${s.name}: ${s.error ? `not collected (${s.error})` : `${size(Buffer.byteLength(s.text))} from ${s.command}${s.truncated ? ', cut to its bound' : ''}`}`,
    ),
  ].join('\n');
}
