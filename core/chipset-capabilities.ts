/**
 * Hardware flow offload by SoC, as mainline OpenWrt drives it (docs/DOMAIN.md, Flow
 * offloading): the table predictCapabilities (capabilities.ts) reads. Keyed by family-level SoC
 * name, with a fallback per platform for when only the platform is known.
 */
export interface ChipsetCapability {
  /** Family-level SoC name, the key (matches RouterFacts.soc). */
  soc: string;
  /** OpenWrt platform the SoC is built by. */
  family: string;
  hardwareOffload: boolean;
  /** Hardware offload needs at least this OpenWrt release ("22.03"), when it is not always there. */
  minOpenWrt?: string;
  /** Hardware offload needs at least this kernel ("6.12"). */
  minKernel?: string;
  why: string;
}

function chipset(
  soc: string,
  family: string,
  hardwareOffload: boolean,
  why: string,
  extra: Partial<ChipsetCapability> = {},
): ChipsetCapability {
  return { soc, family, hardwareOffload, why, ...extra };
}

const PPE = 'mtk_eth_soc PPE offloads fw4 flowtables (flags offload)';
const PPE_FW3 =
  "mtk_eth_soc PPE offloads fw3's FLOWOFFLOAD --hw flows on 21.02 and fw4 flowtables (flags offload) from 22.03";
const ATH79 = 'ath79 Ethernet (ag71xx) has no flow-offload engine: software offload only';
const RAMIPS_NO_PPE = 'no PPE support in mainline mtk_eth_soc for this ramips SoC: software offload only';
const IPQ40XX = 'ipq40xx (essedma/ipqess) has no flow-offload engine in OpenWrt: software offload only';
const IPQ806X = 'ipq806x (stmmac) has no hardware NAT in OpenWrt: software offload only';
const QUALCOMMAX = 'qualcommax NSS offload exists only in unmerged PRs: software offload only';
const BCM27XX = 'Raspberry Pi has no packet-processing engine: software offload only';

/** Chipset capability table keyed by family-level SoC name. */
export const CHIPSET_CAPABILITIES: Readonly<Record<string, ChipsetCapability>> = Object.freeze(
  Object.fromEntries(
    [
      chipset(
        'MT7621',
        'ramips',
        true,
        `${PPE_FW3}; 19.07's offload came from out-of-tree patches and is not managed (software offload there)`,
        { minOpenWrt: '21.02', minKernel: '5.4' },
      ),
      chipset('MT7622', 'mediatek', true, `${PPE} (PPE v2) since OpenWrt 22.03`, {
        minOpenWrt: '22.03',
        minKernel: '5.10',
      }),
      chipset('MT7981', 'filogic', true, `${PPE} (filogic, every OpenWrt release that supports it)`),
      chipset('MT7986', 'filogic', true, `${PPE} (filogic, every OpenWrt release that supports it)`),
      chipset('MT7988', 'filogic', true, `${PPE} (filogic, every OpenWrt release that supports it)`),
      chipset('EN7581', 'airoha', true, 'airoha_eth PPE offloads flowtables on 6.12 kernels (OpenWrt 25.12)', {
        minKernel: '6.12',
      }),
      chipset('AN7581', 'airoha', true, 'airoha_eth PPE offloads flowtables on 6.12 kernels (OpenWrt 25.12)', {
        minKernel: '6.12',
      }),
      ...[
        'QCA9558',
        'QCA9557',
        'QCA9556',
        'QCA9563',
        'QCA9561',
        'QCA956X',
        'QCA9531',
        'QCA9533',
        'QCA953X',
        'TP9343',
        'AR9344',
        'AR9341',
        'AR9342',
        'AR9331',
        'AR7161',
        'AR7241',
        'AR7242',
      ].map((soc) => chipset(soc, 'ath79', false, ATH79)),
      ...['MT7620', 'MT7628', 'MT7688', 'RT3883', 'RT5350', 'RT3052'].map((soc) =>
        chipset(soc, 'ramips', false, RAMIPS_NO_PPE),
      ),
      chipset('MT7623', 'mediatek', false, 'MT7623 PPE offload is not enabled in OpenWrt: software offload only'),
      chipset('MT7629', 'mediatek', false, 'MT7629 has no PPE offload in OpenWrt: software offload only'),
      ...['IPQ4018', 'IPQ4019', 'IPQ4028', 'IPQ4029'].map((soc) => chipset(soc, 'ipq40xx', false, IPQ40XX)),
      ...['IPQ8062', 'IPQ8064', 'IPQ8065', 'IPQ8068', 'IPQ8069'].map((soc) => chipset(soc, 'ipq806x', false, IPQ806X)),
      ...['IPQ8072', 'IPQ8074', 'IPQ8078', 'IPQ6000', 'IPQ6010', 'IPQ6018', 'IPQ6028', 'IPQ5018', 'IPQ5010'].map(
        (soc) => chipset(soc, 'qualcommax', false, QUALCOMMAX),
      ),
      ...['BCM2708', 'BCM2709', 'BCM2710', 'BCM2711', 'BCM2712', 'BCM2835', 'BCM2836', 'BCM2837'].map((soc) =>
        chipset(soc, 'bcm27xx', false, BCM27XX),
      ),
    ].map((entry) => [entry.soc, Object.freeze(entry)]),
  ),
);

/** Used when the SoC is unknown (or x86) but the platform is: the whole platform answers alike. */
export const FAMILY_CAPABILITIES: Readonly<Record<string, { hardwareOffload: boolean; why: string }>> = Object.freeze({
  ath79: { hardwareOffload: false, why: ATH79 },
  ramips: { hardwareOffload: false, why: 'ramips SoC not identified; only MT7621 has a PPE, so none is assumed' },
  mediatek: { hardwareOffload: false, why: 'mediatek SoC not identified; only MT7622 offloads, so none is assumed' },
  filogic: { hardwareOffload: true, why: `${PPE}: every filogic SoC (MT7981/MT7986/MT7988) has one` },
  airoha: { hardwareOffload: false, why: 'airoha SoC not identified; only EN7581 offloads (6.12), so none is assumed' },
  ipq40xx: { hardwareOffload: false, why: IPQ40XX },
  ipq806x: { hardwareOffload: false, why: IPQ806X },
  qualcommax: { hardwareOffload: false, why: QUALCOMMAX },
  bcm27xx: { hardwareOffload: false, why: BCM27XX },
  x86: { hardwareOffload: false, why: 'x86 NICs have no flowtable offload in OpenWrt: software offload only' },
});

export function chipsetCapability(soc: string | null): ChipsetCapability | null {
  return soc ? (CHIPSET_CAPABILITIES[soc.toUpperCase()] ?? null) : null;
}
