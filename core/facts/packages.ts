import type { PackageFacts, PackageManager, TcVariant } from './types.js';

/**
 * The OpenWrt packages that decide what wrtfleet can do on a router:
 *  - tc-tiny (the default) cannot load BPF; tc-bpf or tc-full can (docs/DOMAIN.md, Attaching and falling back);
 *  - kmod-sched-bpf provides cls_bpf, the classic attach path;
 *  - bpftool-minimal / bpftool-full can attach and pin TCX links;
 *  - kmod-nft-offload and firewall4 are what fw4's flowtables need (docs/DOMAIN.md, Flow offloading);
 *  - kmod-ipt-offload is what fw3's FLOWOFFLOAD target needs (OpenWrt 19.07 and 21.02);
 *  - nftables (any build) or iptables with iptables-mod-ipopt decide which fallback datapath runs
 *    where eBPF cannot (docs/DOMAIN.md, Datapath on fw3 releases).
 * Read from `opkg list-installed` (up to 24.10), `apk list --installed` (25.12+), or the
 * package databases directly when the tool cannot run.
 */
export const RELEVANT_PACKAGES = [
  'tc',
  'tc-tiny',
  'tc-bpf',
  'tc-full',
  'kmod-sched-bpf',
  'kmod-sched-core',
  'kmod-sched-cake',
  'bpftool-minimal',
  'bpftool-full',
  'kmod-nft-offload',
  'kmod-ipt-offload',
  'kmod-nf-flow',
  'firewall4',
  'firewall',
  'nftables',
  'nftables-json',
  'nftables-nojson',
  'iptables',
  'iptables-mod-ipopt',
  'kmod-ipt-ipopt',
  'ip-full',
  'ip-tiny',
  'sqm-scripts',
] as const;

const RELEVANT = new Set<string>(RELEVANT_PACKAGES);

export type InstalledList = Map<string, string>;

/** `opkg list-installed`: `name - version` per line. Null when no line has that shape. */
export function parseOpkgList(text: string): InstalledList | null {
  const installed: InstalledList = new Map();
  for (const line of text.split('\n')) {
    const match = /^(\S+) - (\S+)/.exec(line.trim());
    if (match) installed.set(match[1] as string, match[2] as string);
  }
  return installed.size > 0 ? installed : null;
}

/**
 * `apk list --installed`: `tc-bpf-6.11.0-r1 x86_64 {iproute2} (GPL-2.0) [installed]`.
 * The name ends at the first `-<digit>` that starts the version (names like `6in4` start
 * with a digit but never have one right after a dash).
 */
export function parseApkList(text: string): InstalledList | null {
  const installed: InstalledList = new Map();
  for (const line of text.split('\n')) {
    const match = /^(\S+?)-(\d\S*?(?:-r\d+)?)\s/.exec(line.trim() + ' ');
    if (match) installed.set(match[1] as string, match[2] as string);
  }
  return installed.size > 0 ? installed : null;
}

/** /usr/lib/opkg/status: RFC822-style stanzas; only `Status: ... installed` ones count. */
export function parseOpkgStatus(text: string): InstalledList | null {
  const installed: InstalledList = new Map();
  for (const stanza of text.split(/\n\s*\n/)) {
    const name = /^Package:\s*(\S+)/m.exec(stanza)?.[1];
    const version = /^Version:\s*(\S+)/m.exec(stanza)?.[1] ?? '';
    const status = /^Status:\s*(.+)$/m.exec(stanza)?.[1] ?? '';
    if (name && /\binstalled\b/.test(status) && !/not-installed/.test(status)) installed.set(name, version);
  }
  return installed.size > 0 ? installed : null;
}

/** /lib/apk/db/installed: stanzas of `P:name` / `V:version` lines. */
export function parseApkDb(text: string): InstalledList | null {
  const installed: InstalledList = new Map();
  for (const stanza of text.split(/\n\s*\n/)) {
    const name = /^P:(\S+)/m.exec(stanza)?.[1];
    const version = /^V:(\S+)/m.exec(stanza)?.[1] ?? '';
    if (name) installed.set(name, version);
  }
  return installed.size > 0 ? installed : null;
}

/** Reduces a full installed list to what matters, with the derived flags. */
export function packageFacts(all: InstalledList, manager: PackageManager, source: string): PackageFacts {
  const installed: Record<string, string> = {};
  for (const [name, version] of all) if (RELEVANT.has(name)) installed[name] = version;
  const has = (name: string): boolean => all.has(name);
  // Most capable first: a router may carry tc-tiny and tc-full side by side during a swap.
  const tc: TcVariant | null = has('tc-full')
    ? 'tc-full'
    : has('tc-bpf')
      ? 'tc-bpf'
      : has('tc-tiny')
        ? 'tc-tiny'
        : has('tc')
          ? 'tc'
          : null;
  return {
    manager,
    source,
    installed,
    tc,
    // The monolithic pre-22.03 `tc` package's BPF support depended on the build; say unknown.
    tcBpf: tc === 'tc-full' || tc === 'tc-bpf' ? true : tc === 'tc' ? null : false,
    clsBpf: has('kmod-sched-bpf'),
    bpftool: has('bpftool-full') ? 'bpftool-full' : has('bpftool-minimal') ? 'bpftool-minimal' : null,
    nftOffload: has('kmod-nft-offload'),
    iptOffload: has('kmod-ipt-offload'),
    // 19.07 packaged nft as `nftables`; 21.02 on split it into the json and nojson builds.
    nft: has('nftables') || has('nftables-json') || has('nftables-nojson'),
    iptables: has('iptables'),
    firewall: has('firewall4') ? 'firewall4' : has('firewall') ? 'firewall' : null,
  };
}

export function unknownPackages(): PackageFacts {
  return {
    manager: null,
    source: null,
    installed: {},
    tc: null,
    tcBpf: null,
    clsBpf: null,
    bpftool: null,
    nftOffload: null,
    iptOffload: null,
    nft: null,
    iptables: null,
    firewall: null,
  };
}
