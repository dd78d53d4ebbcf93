/**
 * The datapath on both lab guests (issue 34, item 2): real 32-bit MIPS kernels under QEMU,
 * little- and big-endian, driven over SSH by the agent's own modules as a proxy drives an
 * OpenWrt router (lab/checks/datapath*.ts say what each check asserts). One boot per arch; a
 * guest that cannot boot fails its tests with the serial log's last lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDatapathCheck, type DatapathCheckResult } from '../../lab/checks/datapath.js';
import { runNftCheck } from '../../lab/checks/datapath-nft.js';
import { hostCatalogue, runTestRunCheck } from '../../lab/checks/datapath-testrun.js';
import { startGuest, type Guest } from '../../lab/guest.js';
import type { LabArch } from '../../lab/image-cache.js';

/** Measured numbers go to the log: the report quotes them. */
function show(r: DatapathCheckResult | Awaited<ReturnType<typeof runTestRunCheck>>): void {
  console.log(`${r.name}: ${r.ok ? 'ok' : 'FAILED'}: ${r.detail}\n${JSON.stringify(r.numbers)}`);
}

for (const arch of ['mipsel', 'mips'] as LabArch[]) {
  describe(`lab ${arch}: the datapath driven as a router over SSH`, () => {
    let guest: Guest | undefined;
    let bootError: Error | undefined;
    const booted = (): Guest => {
      if (!guest) throw bootError ?? new Error(`the ${arch} guest did not boot`);
      return guest;
    };

    beforeAll(async () => {
      try {
        guest = await startGuest(arch, { log: () => undefined });
      } catch (err) {
        bootError = err as Error; // every test below fails with it, loudly
      }
    }, 900_000);

    afterAll(async () => {
      await guest?.stop();
    }, 60_000);

    it('boots', () => {
      const g = booted();
      expect(g.bootSeconds).toBeGreaterThan(0);
    });

    it('probe loads our program, cls_bpf without TCX, the four rewrites on the wire (eth1, VLAN, JIT on/off), rollback and detach leave it as found', async () => {
      const g = booted();
      const r = await runDatapathCheck(g);
      show(r);
      expect(r.failures).toEqual([]);
      expect(r.report.tcxReason).toBeTruthy();
      expect(r.numbers['jit1.eth1.plain.violations']).toBe(0);
      expect(r.numbers['jit0.eth1.vlan.violations']).toBe(0);
    }, 1_800_000);

    it('BPF_PROG_TEST_RUN of the x86 frame catalogue gives byte-identical output (JIT and interpreter)', async () => {
      const g = booted();
      const reference = await hostCatalogue();
      const r = await runTestRunCheck({ arch, host: g.host });
      show(r);
      expect(r.failures).toEqual([]);
      expect(r.numbers['jit1.compared']).toBe(reference.runs.size);
      expect(r.numbers['jit0.compared']).toBe(reference.runs.size);
    }, 1_800_000);

    if (arch === 'mipsel')
      it('nftables fallback (eBPF off / unavailable): rewrites on the wire, detach leaves it as found', async () => {
        const g = booted();
        const r = await runNftCheck(g);
        show(r);
        expect(r.failures).toEqual([]);
      }, 900_000);
  });
}
