/**
 * The proxy placement for real (proxy-ssh-fixture.ts): commit-confirmed rollbacks when the
 * controller is cut off or the agent restarts, and drift found, reported and repaired over
 * SSH. Checked from outside the agent, with full-state dumps and the TCX chain on wan0.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ApplyResult_Status, Command_Kind } from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import { LOCAL_TCX_HELPER } from '../../../agent/datapath/programs.js';
import { PROGRAM_NAMES } from '../../../core/programs.js';
import { eventually } from '../../support/controller.js';
import { CHAIN_LINKS, ID, proxySshE2e, SPEC } from './proxy-ssh-fixture.js';

const e = proxySshE2e();
const { router, controller, newAgent, desired, push, state, tcxPrograms } = e;

// What the rollbacks below return to: revision 1, applied and confirmed.
beforeAll(async () => {
  const r = await push(desired(SPEC));
  expect(r.status).toBe(ApplyResult_Status.STATUS_APPLIED);
  await eventually(async () => e.agent.manager.current.pending === null, 15_000, 'ConfirmApply processed');
}, 60_000);

describe('commit-confirmed over SSH', () => {
  it('cutting the controller off after an apply rolls back by itself; ROLLED_BACK arrives after reconnect', async () => {
    const confirmed = await state();
    controller.autoConfirm = false;
    const d = desired({ ...SPEC, l3Rewrite: { ttl: { value: 128 } } }, { confirmWindowSeconds: 3 });
    const r = await push(d);
    expect(r.status).toBe(ApplyResult_Status.STATUS_APPLIED);
    expect(await state()).not.toEqual(confirmed); // TTL 128 objects are attached now
    expect(e.agent.manager.appliedRevision()?.pendingConfirm).toBe(true);
    await controller.stop(); // the controller is gone: no ConfirmApply can come
    try {
      await eventually(async () => e.agent.manager.current.pending === null, 10_000, 'rollback by itself');
      expect(await state()).toEqual(confirmed);
      expect(e.agent.manager.current.applied?.revision).toBe(1);
      expect(e.agent.manager.current.outbox.map((o) => o.value.status)).toEqual([
        ApplyResult_Status.STATUS_ROLLED_BACK,
      ]);
    } finally {
      controller.autoConfirm = true;
      await controller.start(controller.port);
    }
    const rolled = await eventually(
      async () =>
        controller
          .results(ID)
          .find((x) => x.revision === d.revision && x.status === ApplyResult_Status.STATUS_ROLLED_BACK),
      15_000,
      'ROLLED_BACK after reconnect',
    );
    expect(rolled.error).toMatch(/no ConfirmApply from the controller within 3 s: rolled back to p-e2e@1/);
    expect(e.agent.manager.current.outbox).toEqual([]);
    // The next Hello says what runs now.
    expect(controller.hellos.filter((h) => h.identity === ID).at(-1)!.hello.applied).toMatchObject({
      revision: 1,
      pendingConfirm: false,
    });
  });

  it('an agent restart during the window still rolls back (pending state persisted in the state file)', async () => {
    const confirmed = await state();
    controller.autoConfirm = false;
    const d = desired({ ...SPEC, l3Rewrite: { ttl: { value: 200 } } }, { confirmWindowSeconds: 4 });
    expect((await push(d)).status).toBe(ApplyResult_Status.STATUS_APPLIED);
    await e.agent.stop();
    expect(await state()).not.toEqual(confirmed);
    e.agent = newAgent();
    e.agent.start();
    await eventually(
      async () =>
        controller
          .results(ID)
          .some((x) => x.revision === d.revision && x.status === ApplyResult_Status.STATUS_ROLLED_BACK),
      15_000,
      'ROLLED_BACK from the restarted agent',
    );
    controller.autoConfirm = true;
    expect(await state()).toEqual(confirmed);
  });
});

describe('drift and commands over SSH', () => {
  it('a program detached by hand is reported exactly by CHECK_DRIFT', async () => {
    await eventually(async () => controller.connected(ID), 10_000, 'connected');
    const a = e.agent.manager.current.applied!;
    const pins = (await router.inside.run(['sh', '-c', 'ls -d /sys/fs/bpf/wrtfleet/wan0/wf_chain-*'])).stdout.trim();
    expect(pins).toMatch(/wf_chain-[0-9a-f]{12}$/);
    expect((await router.inside.run([LOCAL_TCX_HELPER, 'detach', `${pins}/link`])).code).toBe(0);
    expect(await tcxPrograms()).toBe(0);
    const seq = controller.send(ID, {
      $case: 'command',
      value: { kind: Command_Kind.KIND_CHECK_DRIFT, commandId: '' },
    });
    const report = await eventually(async () => controller.driftReports(ID).at(-1), 10_000, 'drift report');
    expect(report.revision).toBe(a.revision);
    // The four rewrites ran in that one program: each is reported missing.
    expect(report.differences).toEqual(
      PROGRAM_NAMES.map((p) => ({
        path: `datapath/wan0/${p}`,
        expected: expect.stringMatching(/^attached \(tcx, config [0-9a-f]{12}\)$/),
        actual: 'missing',
      })),
    );
    await eventually(
      async () => controller.commandResults(ID).find((c) => c.commandSeq === seq),
      15_000,
      'CommandResult',
    );
    expect(controller.commandResults(ID).find((c) => c.commandSeq === seq)).toMatchObject({ ok: true, error: '' });
  });

  it('REAPPLY repairs it; DETACH removes everything; ROLLBACK with nothing to undo is a clear error', async () => {
    const seq = controller.send(ID, { $case: 'command', value: { kind: Command_Kind.KIND_REAPPLY, commandId: '' } });
    await eventually(
      async () => controller.commandResults(ID).find((c) => c.commandSeq === seq),
      20_000,
      'REAPPLY result',
    );
    expect(controller.commandResults(ID).find((c) => c.commandSeq === seq)?.ok).toBe(true);
    expect(await tcxPrograms()).toBe(CHAIN_LINKS);

    const det = controller.send(ID, { $case: 'command', value: { kind: Command_Kind.KIND_DETACH, commandId: '' } });
    await eventually(
      async () => controller.commandResults(ID).find((c) => c.commandSeq === det),
      20_000,
      'DETACH result',
    );
    expect(await tcxPrograms()).toBe(0);
    expect((await router.inside.run(['sh', '-c', 'ls /sys/fs/bpf/wrtfleet 2>/dev/null | wc -l'])).stdout.trim()).toBe(
      '0',
    );
    expect(e.agent.manager.current.applied).toBeNull();

    const rb = controller.send(ID, { $case: 'command', value: { kind: Command_Kind.KIND_ROLLBACK, commandId: '' } });
    const res = await eventually(
      async () => controller.commandResults(ID).find((c) => c.commandSeq === rb),
      10_000,
      'ROLLBACK result',
    );
    expect(res).toMatchObject({ ok: false, error: 'nothing to roll back' });
  });

  it('with drift policy reapply, the timer re-applies what was removed by hand', async () => {
    await e.agent.stop();
    e.agent = newAgent({ driftIntervalMs: 700 });
    e.agent.start();
    await eventually(async () => controller.connected(ID), 10_000, 'connected');
    const r = await push(desired({ ...SPEC, drift: { policy: 'reapply' } }));
    expect(r.status).toBe(ApplyResult_Status.STATUS_APPLIED);
    await eventually(async () => e.agent.manager.current.pending === null, 15_000, 'confirmed');
    const reportsBefore = controller.driftReports(ID).length;
    const chainDir = (
      await router.inside.run(['sh', '-c', 'ls -d /sys/fs/bpf/wrtfleet/wan0/wf_chain-*'])
    ).stdout.trim();
    await router.inside.run([LOCAL_TCX_HELPER, 'detach', `${chainDir}/link`]);
    expect(await tcxPrograms()).toBe(0);
    await eventually(async () => (await tcxPrograms()) === CHAIN_LINKS, 15_000, 're-applied by the drift timer');
    const report = controller.driftReports(ID)[reportsBefore]!;
    expect(report.differences.map((x) => x.path)).toEqual(PROGRAM_NAMES.map((p) => `datapath/wan0/${p}`));
  });
});
