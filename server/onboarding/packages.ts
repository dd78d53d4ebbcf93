/**
 * Step 3 of onboarding: which OpenWrt packages the router's plan needs and which are
 * missing, and (only when asked) installing them.
 *
 * What a plan needs (docs/DOMAIN.md, Attaching and falling back): a `tc` that can load BPF (`tc-bpf`, or `tc-full`, which
 * also can), `kmod-sched-bpf` (cls_bpf) and `bpftool-minimal` (`bpftool-full` does too); on
 * fw3 releases (19.07, 21.02) also `kmod-ipt-offload`, fw3's FLOWOFFLOAD target. A kernel
 * that cannot load our programs at all (before 5.2: .rodata globals) gets no eBPF tooling, and
 * on fw3 `iptables-mod-ipopt` for the iptables fallback instead.
 * The installed list is read with the router's own tool, `opkg list-installed` up to 24.10
 * and `apk list --installed` from 25.12, and parsed with the agent's parsers, so the
 * controller and the agent agree on what "installed" means.
 *
 * Everything goes through a RouterHost (SSH in production, scripted transcripts in tests),
 * never a shell of our own.
 */
import { EBPF_FLOOR_KERNEL } from '../../core/capabilities.js';
import { firewallGeneration, FW4_MIN_OPENWRT } from '../../core/facts/firewall.js';
import { openWrtAtLeast } from '../../core/facts/release.js';
import type { RouterFacts } from '../../core/facts/index.js';
import { kernelAtLeast } from '../../core/facts/kernel.js';
import { parseApkList, parseOpkgList } from '../../core/facts/packages.js';
import type { RouterHost } from '../../core/host/router-host.js';

export type Manager = 'opkg' | 'apk';

/** One requirement; `anyOf` lists packages that each satisfy it, the first is what we install. */
export const REQUIRED_PACKAGES: { need: string; anyOf: string[] }[] = [
  // Before 22.03 tc was one package, `tc`, built with BPF support.
  { need: 'tc with BPF support', anyOf: ['tc-bpf', 'tc-full', 'tc'] },
  { need: 'cls_bpf classifier', anyOf: ['kmod-sched-bpf'] },
  { need: 'bpftool', anyOf: ['bpftool-minimal', 'bpftool-full'] },
];

/** fw3's flow offloading (iptables FLOWOFFLOAD); fw4 routers carry kmod-nft-offload in the default image. */
export const FW3_OFFLOAD_PACKAGE = { need: "fw3's FLOWOFFLOAD target", anyOf: ['kmod-ipt-offload'] };

/**
 * The iptables fallback's targets (TTL, HL, TCPOPTSTRIP): what a fw3 router whose kernel cannot
 * load our programs rewrites with (core/plan/netfilter-fallback.ts).
 */
export const IPTABLES_REWRITE_PACKAGE = { need: 'TTL, HL and TCPOPTSTRIP targets', anyOf: ['iptables-mod-ipopt'] };

/**
 * The requirements of this router: eBPF tooling where its kernel can run our programs, fw3's
 * offload module on fw3, and the iptables fallback's targets on fw3 routers without eBPF.
 */
export function requiredPackages(
  facts: Pick<RouterFacts, 'openwrt' | 'kernel' | 'packages'>,
): typeof REQUIRED_PACKAGES {
  let ebpf = kernelAtLeast(facts.kernel, EBPF_FLOOR_KERNEL) !== false ? REQUIRED_PACKAGES : [];
  // 19.07 and 21.02 feeds have no tc-bpf: their one `tc` is what to install.
  if (openWrtAtLeast(facts.openwrt?.release, FW4_MIN_OPENWRT) === false)
    ebpf = ebpf.map((req) => (req.anyOf.includes('tc') ? { ...req, anyOf: ['tc', 'tc-bpf', 'tc-full'] } : req));
  if (firewallGeneration(facts)?.generation !== 'fw3') return ebpf;
  return ebpf.length > 0 ? [...ebpf, FW3_OFFLOAD_PACKAGE] : [FW3_OFFLOAD_PACKAGE, IPTABLES_REWRITE_PACKAGE];
}

export interface PackagePlan {
  /** null: not OpenWrt (a generic Linux box); packages are the operator's business there. */
  manager: Manager | null;
  /** Required packages present, name -> version. */
  present: Record<string, string>;
  /** Exact names to install, in install order. */
  missing: string[];
}

export class PackageError extends Error {
  constructor(
    readonly kind: 'no-internet' | 'install-failed' | 'list-failed',
    message: string,
  ) {
    super(message);
    this.name = 'PackageError';
  }
}

/** Which tool the router has: the facts' answer first, then the release (apk from 25.12). */
export function managerFor(facts: RouterFacts): Manager | null {
  if (!facts.openwrt) return null;
  if (facts.packages.manager) return facts.packages.manager;
  const m = /^(\d+)\.(\d+)/.exec(facts.openwrt.release ?? '');
  if (m && (Number(m[1]) > 25 || (Number(m[1]) === 25 && Number(m[2]) >= 12))) return 'apk';
  // SNAPSHOT builds moved to apk before 25.12; opkg otherwise.
  return facts.openwrt.release === 'SNAPSHOT' ? 'apk' : 'opkg';
}

const LIST: Record<Manager, string[]> = { opkg: ['opkg', 'list-installed'], apk: ['apk', 'list', '--installed'] };

async function installedList(host: RouterHost, manager: Manager): Promise<Map<string, string>> {
  const r = await host.run(LIST[manager], { timeoutMs: 60_000 });
  if (r.code !== 0)
    throw new PackageError(
      'list-failed',
      `${LIST[manager].join(' ')} failed (exit ${r.code}): ${firstLines(r.stderr || r.stdout)}`,
    );
  const parsed = manager === 'opkg' ? parseOpkgList(r.stdout) : parseApkList(r.stdout);
  return parsed ?? new Map();
}

export async function planPackages(host: RouterHost, facts: RouterFacts): Promise<PackagePlan> {
  const manager = managerFor(facts);
  if (!manager) return { manager: null, present: {}, missing: [] };
  const installed = await installedList(host, manager);
  const present: Record<string, string> = {};
  const missing: string[] = [];
  for (const req of requiredPackages(facts)) {
    const have = req.anyOf.find((p) => installed.has(p));
    if (have) present[have] = installed.get(have)!;
    else missing.push(req.anyOf[0]!);
  }
  return { manager, present, missing };
}

function firstLines(text: string, n = 6): string {
  return text.trim().split('\n').slice(0, n).join(' | ');
}

/**
 * What opkg (uclient-fetch/wget) and apk print when the feeds cannot be reached. A router
 * without internet is the common case on a fresh install behind a captive uplink: say so
 * instead of echoing a wall of text.
 */
const OFFLINE =
  /Failed to download the package list|Failed to (?:send request|resolve host|connect)|bad address|Network unreachable|Connection refused|network error|unable to (?:fetch|connect)|temporary error|DNS lookup|Could not resolve/i;

/** `opkg update && opkg install ...` or `apk update && apk add ...`; returns what was installed. */
export async function installPackages(
  host: RouterHost,
  manager: Manager,
  names: string[],
): Promise<{ installed: string[]; output: string }> {
  if (names.length === 0) return { installed: [], output: '' };
  const update = manager === 'opkg' ? ['opkg', 'update'] : ['apk', 'update'];
  const u = await host.run(update, { timeoutMs: 180_000 });
  const uText = `${u.stdout}\n${u.stderr}`;
  if (u.code !== 0 || OFFLINE.test(uText)) {
    if (OFFLINE.test(uText)) {
      throw new PackageError(
        'no-internet',
        `the router cannot reach its package feeds (no internet access?): \`${update.join(' ')}\` said: ${firstLines(
          uText
            .split('\n')
            .filter((l) => OFFLINE.test(l))
            .join('\n'),
          2,
        )}. Give it internet access, or install ${names.join(' ')} by hand and re-run without --install`,
      );
    }
    throw new PackageError('install-failed', `\`${update.join(' ')}\` failed (exit ${u.code}): ${firstLines(uText)}`);
  }
  const add = manager === 'opkg' ? ['opkg', 'install', ...names] : ['apk', 'add', ...names];
  const a = await host.run(add, { timeoutMs: 600_000 });
  const aText = `${a.stdout}\n${a.stderr}`;
  // Re-read instead of trusting the exit status: opkg exits 0 after "Collected errors" on some releases.
  const after = await installedList(host, manager);
  const notThere = names.filter((n) => !after.has(n));
  if (a.code !== 0 || notThere.length > 0) {
    if (OFFLINE.test(aText))
      throw new PackageError(
        'no-internet',
        `the router lost access to its package feeds while installing: ${firstLines(aText, 3)}`,
      );
    throw new PackageError(
      'install-failed',
      `\`${add.join(' ')}\` failed (exit ${a.code}; not installed: ${notThere.join(' ') || 'none'}): ${firstLines(aText)}`,
    );
  }
  return { installed: names, output: aText };
}
