/**
 * What the agent knows about the router it manages (docs/DOMAIN.md, Knowing the device).
 *
 * Every field that could not be learned is null (or empty) AND has an entry in `unknown`
 * saying why, so the controller can tell "this router has no WAN" from "we could not read
 * board.json". Raw source strings are kept as evidence next to the normalized values,
 * because the device wins over our tables and an operator must be able to see why.
 */

export type Endian = 'little' | 'big';

/** A field that degraded to unknown, and why (missing file, garbage, not OpenWrt...). */
export interface UnknownField {
  field: string;
  reason: string;
}

export interface OpenWrtRelease {
  /** "OpenWrt", or a derivative that declares ID_LIKE=openwrt (ImmortalWrt, GL.iNet...). */
  distribution: string;
  /** The release: "23.05.3", "24.10.4", "SNAPSHOT". */
  release: string;
  /** "ath79/generic", "ramips/mt7621"; null when no source named it. */
  target: string | null;
  /** "r23809-234f1a2efa". */
  revision: string | null;
  /** Package architecture, "mips_24kc", "aarch64_cortex-a53". */
  arch: string | null;
  /** Which file or command the release came from. */
  source: string;
}

/** A non-OpenWrt operating system (the proxy's Linux host, a generic Linux router). */
export interface OtherOs {
  id: string;
  name: string | null;
  version: string | null;
}

export interface DefaultRoute {
  dev: string;
  gateway: string | null;
  /** "ip -j route", "ip route", "/proc/net/route". */
  source: string;
}

export type TcVariant = 'tc-tiny' | 'tc-bpf' | 'tc-full' | 'tc';
export type PackageManager = 'opkg' | 'apk';

export interface PackageFacts {
  /** Which package database answered; null when none did (then every flag below is null). */
  manager: PackageManager | null;
  source: string | null;
  /** Installed packages among those that matter to wrtfleet, name -> version. */
  installed: Record<string, string>;
  /** Which iproute2 tc build is installed; tc-tiny has no BPF support. */
  tc: TcVariant | null;
  /** tc can load a BPF object (tc-bpf or tc-full; the pre-22.03 monolithic `tc` had BPF too). */
  tcBpf: boolean | null;
  /** cls_bpf is available (kmod-sched-bpf). */
  clsBpf: boolean | null;
  /** "bpftool-minimal" | "bpftool-full" | null. */
  bpftool: string | null;
  /** nftables flowtable hardware offload module (kmod-nft-offload). */
  nftOffload: boolean | null;
  /** fw3's iptables FLOWOFFLOAD target (kmod-ipt-offload), what 19.07 and 21.02 offload with. */
  iptOffload: boolean | null;
  /** The nft tool is installed (nftables, nftables-json or nftables-nojson). */
  nft: boolean | null;
  /** The iptables tool is installed (fw3 releases always carry it). */
  iptables: boolean | null;
  /** "firewall4" (fw4, nftables) | "firewall" (fw3, iptables) | null. */
  firewall: 'firewall4' | 'firewall' | null;
}

export interface RouterFacts {
  /** Family-level SoC name used by the capability table: "MT7621", "QCA9558", "MT7986". */
  soc: string | null;
  /** Exact part when the source is more precise than the family: "MT7986A", "MT7628AN". */
  socVariant: string | null;
  /** SoC line / OpenWrt platform: "ath79", "ramips", "filogic", "ipq40xx", "qualcommax", "x86". */
  socFamily: string | null;
  /** OpenWrt target/subtarget, "ath79/generic". */
  target: string | null;
  /** Raw /proc/device-tree/compatible entries, most specific first. */
  compatible: string[];
  /** Raw cpuinfo `system type` (MIPS) or `Hardware` (ARM32) line. */
  systemType: string | null;
  /** Package architecture when OpenWrt names it ("mipsel_24kc"), else the kernel's ("x86_64"). */
  arch: string | null;
  /** `uname -m` (MIPS prints "mips" for both endiannesses, so it never decides endianness). */
  machine: string | null;
  endian: Endian | null;
  /** Kernel release as the kernel reports it, "6.6.110" or "6.1.0-18-amd64". */
  kernel: string | null;
  openwrt: OpenWrtRelease | null;
  /** Set when the OS is identified and is not OpenWrt. */
  os: OtherOs | null;
  model: { id: string | null; name: string | null };
  boardName: string | null;
  cpu: { model: string | null; cores: number | null };
  network: {
    /** Default-route devices first (the live L3 WAN, e.g. pppoe-wan), then board.json's. */
    wan: string[];
    lan: string[];
    defaultRoutes: DefaultRoute[];
  };
  packages: PackageFacts;
  /** Every field that degraded to unknown, and why. */
  unknown: UnknownField[];
  /** field -> where its value came from ("/proc/device-tree/compatible"...). */
  evidence: Record<string, string>;
  /** Sources that were present but unreadable or garbage, with what was wrong. */
  problems: string[];
}
