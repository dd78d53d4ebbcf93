/**
 * Naming the SoC, from the sources docs/DOMAIN.md lists (Knowing the device), most precise first:
 *  1. /proc/device-tree/compatible: the first SoC-shaped entry after the board entry
 *     (`qca,qca9563`, `mediatek,mt7621-soc`, `mediatek,mt7986a`, `qcom,ipq8065`);
 *  2. cpuinfo `system type` on MIPS (`Qualcomm Atheros QCA9558 ver 1 rev 0`); note ath79
 *     reports the whole QCA956x line as `QCA956X`, so the device tree wins when present;
 *  3. `ubus call system board` .system (the same string on MIPS, useless "ARMv8 Processor"
 *     on arm64);
 *  4. the OpenWrt subtarget, only where it names exactly one SoC (ramips/mt7621).
 *
 * `soc` is the family-level part the capability table is keyed by (MT7986 for MT7986A/B,
 * MT7628 for MT7628AN); `variant` keeps the exact part as evidence.
 */
export interface SocIdentity {
  soc: string;
  variant: string;
  /** OpenWrt platform of the SoC, or null for a SoC-shaped name we do not know. */
  family: string | null;
  source: string;
}

/** Which OpenWrt platform each SoC line belongs to. */
const SOC_FAMILIES: { pattern: RegExp; family: string }[] = [
  { pattern: /^(QCA95\d\d|QCA956X|QCA953X|AR7\d{3}|AR9\d{3}|AR934X|TP9343|QCN55\d\d)$/, family: 'ath79' },
  { pattern: /^(MT7620|MT7621|MT7628|MT7688|RT2880|RT3050|RT3052|RT3350|RT3352|RT3883|RT5350)$/, family: 'ramips' },
  { pattern: /^(MT7622|MT7623|MT7629)$/, family: 'mediatek' },
  { pattern: /^(MT7981|MT7986|MT7987|MT7988)$/, family: 'filogic' },
  { pattern: /^IPQ40[12][89]$/, family: 'ipq40xx' },
  { pattern: /^IPQ806\d$/, family: 'ipq806x' },
  { pattern: /^(IPQ807\d|IPQ60\d\d|IPQ50\d\d)$/, family: 'qualcommax' },
  { pattern: /^(EN75\d\d|AN75\d\d|EN7581|AN7581|AN7583)$/, family: 'airoha' },
  { pattern: /^BCM27\d\d|^BCM283\d$/, family: 'bcm27xx' },
  { pattern: /^RTL93\d\dX?$|^RTL83\d\dX?$/, family: 'realtek' },
];

/**
 * A chip part number: vendor letters then digits (MT7621, QCA9558, IPQ4019, BCM2711, EN7581,
 * RTL838X) with an optional package/revision suffix (MT7986A, MT7628AN). Board entries
 * (`tplink,archer-c7-v2`) never look like this.
 */
const PART = /^(MT|RT|QCA|QCN|AR|TP|IPQ|BCM|EN|AN|RTL)(\d{3}[\dX])([A-Z]{0,2})$/;

/** Family-level name: MediaTek/Ralink/Airoha suffix letters are package variants of one SoC. */
function familyLevel(part: string): { soc: string; variant: string } | null {
  const match = PART.exec(part);
  if (!match) return null;
  const [, prefix, digits] = match as unknown as [string, string, string, string];
  const variantBearing = prefix === 'MT' || prefix === 'RT' || prefix === 'EN' || prefix === 'AN';
  return { soc: variantBearing ? `${prefix}${digits}` : part, variant: part };
}

export function socFamilyOf(soc: string): string | null {
  return SOC_FAMILIES.find(({ pattern }) => pattern.test(soc))?.family ?? null;
}

/** `mediatek,mt7621-soc` -> MT7621; `qcom,ipq8074` -> IPQ8074; `tplink,archer-c7-v2` -> null. */
export function socFromCompatibleEntry(entry: string): { soc: string; variant: string } | null {
  const name = entry.split(',')[1];
  if (!name) return null;
  return familyLevel(name.replace(/-soc$/i, '').toUpperCase());
}

export function socFromCompatible(compatible: string[]): SocIdentity | null {
  // Entry 0 is the board; a device tree listing only one entry is checked too.
  const candidates = compatible.length > 1 ? compatible.slice(1) : compatible;
  for (const entry of candidates) {
    const part = socFromCompatibleEntry(entry);
    if (part) return { ...part, family: socFamilyOf(part.soc), source: `/proc/device-tree/compatible (${entry})` };
  }
  return null;
}

/** `MediaTek MT7621 ver:1 eco:3`, `Atheros AR9344 rev 2`, `Qualcomm Atheros QCA956X ver 1 rev 0`. */
export function socFromSystemType(systemType: string, source: string): SocIdentity | null {
  for (const token of systemType.toUpperCase().split(/[\s:,()]+/)) {
    const part = familyLevel(token);
    if (part) return { ...part, family: socFamilyOf(part.soc), source: `${source} (${systemType})` };
  }
  return null;
}

/** Subtargets named after the single SoC they build for. */
const SINGLE_SOC_SUBTARGETS: Record<string, string> = {
  'ramips/mt7621': 'MT7621',
  'mediatek/mt7622': 'MT7622',
  'mediatek/mt7623': 'MT7623',
  'mediatek/mt7629': 'MT7629',
  'airoha/an7581': 'EN7581',
  'bcm27xx/bcm2711': 'BCM2711',
  'bcm27xx/bcm2712': 'BCM2712',
};

export function socFromTarget(target: string): SocIdentity | null {
  const soc = SINGLE_SOC_SUBTARGETS[target];
  if (!soc) return null;
  return { soc, variant: soc, family: socFamilyOf(soc), source: `OpenWrt target ${target} (builds for one SoC only)` };
}

/**
 * The platform from the OpenWrt target: "mediatek/filogic" -> filogic (its own SoC line),
 * "ar71xx/generic" -> ath79 (the same chips before the device-tree port), else the target.
 */
export function familyFromTarget(target: string): string | null {
  const [platform, subtarget] = target.split('/');
  if (!platform) return null;
  if (platform === 'mediatek' && subtarget === 'filogic') return 'filogic';
  if (platform === 'ar71xx') return 'ath79';
  return platform;
}

/** Whether the machine is x86 (no SoC, no device tree). */
export function isX86Machine(machine: string | null): boolean {
  return machine !== null && /^(x86_64|i[3-6]86|amd64)$/.test(machine);
}
