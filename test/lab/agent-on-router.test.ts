/**
 * The agent on real 32-bit MIPS kernels (issue 34, items 5 and 6):
 *  - mipsel guest: `agent facts` and the probe give the right answers (arch, 24Kc, kernel 6.1,
 *    eBPF predicted and probed, JIT at bpf_jit_enable 1 and the interpreter at 0, no TCX,
 *    cls_bpf), and the packaged agent runs on the guest's Node 18: enrolls over mTLS, says
 *    Hello, applies the rewrites to eth1 with cls_bpf and reports telemetry; start-up time and
 *    idle RSS are measured.
 *  - mips (big-endian) guest: the same facts and probe answers, over SSH (it has no Node.js,
 *    as ath79 routers have none: the proxy placement's path).
 * One boot per arch, mipsel then mips. A guest that cannot be built or booted fails the test
 * with the serial log's last lines; under TCG everything here is slow (minutes), so are the
 * timeouts (the mips one also covers a cold image build, a kernel compiled from source).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { agentOnRouter } from '../../lab/checks/agent-on-router.js';
import { routerFacts } from '../../lab/checks/facts.js';
import type { CheckResult, LabCheck } from '../../lab/checks/lab-check.js';
import { serialLogTail, startGuest, type Guest } from '../../lab/guest.js';
import type { LabArch } from '../../lab/image-cache.js';

const MINUTE = 60_000;
const guests = new Map<LabArch, Guest>();

/** Boots the arch, waiting (up to 30 min) while another helper's run owns it. */
async function guestFor(arch: LabArch): Promise<Guest> {
  const running = guests.get(arch);
  if (running) return running;
  const deadline = Date.now() + 30 * MINUTE;
  for (;;) {
    try {
      const guest = await startGuest(arch, { jit: true, log: () => undefined });
      guests.set(arch, guest);
      return guest;
    } catch (err) {
      if (!/(already|guest is) running/.test((err as Error).message) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20_000));
    }
  }
}

async function stopGuest(arch: LabArch): Promise<void> {
  await guests.get(arch)?.stop();
  guests.delete(arch);
}

afterAll(async () => {
  for (const arch of [...guests.keys()]) await stopGuest(arch);
}, MINUTE);

async function run(check: LabCheck, guest: Guest): Promise<CheckResult> {
  const result = await check.run(guest).catch((err: Error) => {
    throw new Error(`${check.name} threw: ${err.message}\n--- serial log ---\n${serialLogTail(guest)}`, { cause: err });
  });
  // The measurements go to the test log, the report quotes them.
  console.log(
    `${check.name} on ${guest.arch}: ${JSON.stringify(result.numbers)}\n  ${(result.steps ?? []).map((s) => `${s.ok ? 'ok  ' : 'FAIL'} ${s.name}: ${s.detail}`).join('\n  ')}`,
  );
  return result;
}

function failedSteps(result: CheckResult): string[] {
  return (result.steps ?? []).filter((s) => !s.ok).map((s) => `${s.name}: ${s.detail}`);
}

describe('the agent on the mipsel guest (Debian 6.1 4kc-malta, Node 18)', () => {
  it(
    'agent facts and the probe: mipsel, 24Kc, 6.1, eBPF via cls_bpf, JIT at 1 and interpreter at 0, no TCX',
    async () => {
      const result = await run(routerFacts, await guestFor('mipsel'));
      expect(failedSteps(result)).toEqual([]);
      expect((result.steps ?? []).map((s) => s.name)).toEqual(
        expect.arrayContaining([
          'arch',
          'cpu',
          'kernel',
          'predicted JIT',
          'JIT at 1',
          'interpreter at 0',
          'probed TCX',
          'agent facts on router',
        ]),
      );
    },
    40 * MINUTE,
  );

  it(
    'the bundled agent enrolls over mTLS, applies the rewrites to eth1 with cls_bpf and reports telemetry',
    async () => {
      const result = await run(agentOnRouter, await guestFor('mipsel'));
      expect(failedSteps(result)).toEqual([]);
      expect(result.numbers?.startToHelloMs).toBeGreaterThan(0);
      expect(result.numbers?.idleRssKiB).toBeGreaterThan(0);
      expect(result.numbers?.telemetryPacketsSeen).toBeGreaterThanOrEqual(10);
      await stopGuest('mipsel');
    },
    90 * MINUTE,
  );
});

describe('the agent facing the mips guest (big-endian 6.1, no Node.js: over SSH)', () => {
  it(
    'facts and the probe: mips big-endian, 24Kc, 6.1, eBPF via cls_bpf, JIT at 1 and interpreter at 0, no TCX',
    async () => {
      const result = await run(routerFacts, await guestFor('mips'));
      expect(failedSteps(result)).toEqual([]);
      expect(result.steps?.find((s) => s.name === 'arch')?.detail).toMatch(/arch mips, big-endian/);
      await stopGuest('mips');
    },
    75 * MINUTE,
  );
});
