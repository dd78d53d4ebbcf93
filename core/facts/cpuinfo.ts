/**
 * /proc/cpuinfo, whose shape differs per architecture:
 *  - MIPS names the SoC (`system type : MediaTek MT7621 ver:1 eco:3`), the board
 *    (`machine : <device-tree model>`) and the core (`cpu model : MIPS 1004Kc V2.15`);
 *  - arm64 names neither SoC nor core, only `CPU implementer`/`CPU part` ids;
 *  - ARM32 adds `model name : ARMv7 Processor rev 0 (v7l)` and `Hardware : ...`;
 *  - x86 has `vendor_id` and `model name`;
 *  - Raspberry Pi kernels append `Hardware`, `Revision`, `Serial` and `Model`.
 */
export interface Cpuinfo {
  systemType: string | null;
  machine: string | null;
  /** Best human CPU name: MIPS `cpu model`, x86 `model name`, or the ARM core from its part id. */
  cpuModel: string | null;
  /** Number of `processor : N` entries (hardware threads as the kernel sees them). */
  cores: number | null;
  /** ARM32 / Raspberry Pi `Hardware` line. */
  hardware: string | null;
  /** Raspberry Pi `Model` line. */
  boardModel: string | null;
  /** x86 `vendor_id` (GenuineIntel, AuthenticAMD): tells an x86 box without uname. */
  vendorId: string | null;
}

/** ARM core names by (implementer, part), for arm64 cpuinfo that prints only the ids. */
const ARM_CORES: Record<string, string> = {
  '0x41:0xc07': 'ARM Cortex-A7',
  '0x41:0xc09': 'ARM Cortex-A9',
  '0x41:0xc0f': 'ARM Cortex-A15',
  '0x41:0xd03': 'ARM Cortex-A53',
  '0x41:0xd04': 'ARM Cortex-A35',
  '0x41:0xd05': 'ARM Cortex-A55',
  '0x41:0xd07': 'ARM Cortex-A57',
  '0x41:0xd08': 'ARM Cortex-A72',
  '0x41:0xd09': 'ARM Cortex-A73',
  '0x41:0xd0b': 'ARM Cortex-A76',
  '0x41:0xd0c': 'ARM Neoverse-N1',
  '0x51:0x06f': 'Qualcomm Krait',
  '0x51:0x04d': 'Qualcomm Krait',
};

export function parseCpuinfo(text: string): Cpuinfo | null {
  const first = new Map<string, string>();
  let processors = 0;
  let recognized = false;
  for (const raw of text.split('\n')) {
    const colon = raw.indexOf(':');
    if (colon < 0) continue;
    const key = raw.slice(0, colon).trim();
    const value = raw.slice(colon + 1).trim();
    if (!/^[A-Za-z][A-Za-z0-9 _]*$/.test(key)) continue;
    recognized = true;
    // `processor : 0` counts CPUs; old ARM32 kernels also print `Processor : ARMv7 ...` (a name).
    if (key === 'processor' && /^\d+$/.test(value)) processors += 1;
    if (!first.has(key) && value !== '') first.set(key, value);
  }
  if (!recognized) return null;

  const get = (key: string): string | null => first.get(key) ?? null;
  const modelName = get('model name') ?? get('Processor');
  const implementer = get('CPU implementer')?.toLowerCase();
  const part = get('CPU part')?.toLowerCase();
  const armCore = implementer && part ? (ARM_CORES[`${implementer}:${part}`] ?? null) : null;
  // "ARMv7 Processor rev 0 (v7l)" says less than the core the part id names.
  const genericArm = modelName !== null && /^ARMv\d+ Processor/.test(modelName);
  const cpuModel = get('cpu model') ?? (genericArm ? (armCore ?? modelName) : (modelName ?? armCore));

  return {
    systemType: get('system type'),
    machine: get('machine'),
    cpuModel,
    cores: processors > 0 ? processors : null,
    hardware: get('Hardware'),
    boardModel: get('Model'),
    vendorId: get('vendor_id'),
  };
}
