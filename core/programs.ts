/**
 * The four TC egress rewrites as a plan names them, and the settings they take: the
 * vocabulary the profile spec, the plan and the datapath share (docs/DOMAIN.md, The four rewrites).
 */

/** Fixed names (part of the API and the plan); also the ELF program (function) names. */
export const PROGRAM_NAMES = ['set_ip_id_zero', 'set_ip_ttl', 'set_tcp_syn_window', 'clear_tcp_syn_ts'] as const;
export type ProgramName = (typeof PROGRAM_NAMES)[number];

/** How a program is attached to an interface: a TCX link (kernel 6.6+) or a cls_bpf filter. */
export type AttachMode = 'tcx' | 'cls_bpf';

/** clang targets: bpfel for x86_64/aarch64/mipsel (mt7621), bpfeb for mips (ath79). */
export type BpfEndian = 'bpfel' | 'bpfeb';

export interface RewriteConfig {
  /** Programs to chain; order does not matter for correctness (they touch disjoint fields). */
  programs: ProgramName[];
  /** TTL (and hop limit) target, 1..255. */
  ttl: number;
  /** Window put into first SYNs, 1..65535. */
  synWindow: number;
  /** Also rewrite the IPv6 hop limit in set_ip_ttl. */
  ipv6HopLimit: boolean;
}

export const DEFAULT_REWRITE: RewriteConfig = {
  programs: [...PROGRAM_NAMES],
  ttl: 64,
  synWindow: 65535,
  ipv6HopLimit: false,
};

export function validateRewrite(cfg: RewriteConfig): void {
  if (!Number.isInteger(cfg.ttl) || cfg.ttl < 1 || cfg.ttl > 255) throw new Error(`ttl must be 1..255, got ${cfg.ttl}`);
  if (!Number.isInteger(cfg.synWindow) || cfg.synWindow < 1 || cfg.synWindow > 65535)
    throw new Error(`synWindow must be 1..65535, got ${cfg.synWindow}`);
  for (const p of cfg.programs) if (!PROGRAM_NAMES.includes(p)) throw new Error(`unknown program ${p}`);
  if (new Set(cfg.programs).size !== cfg.programs.length) throw new Error('duplicate program in chain');
}
