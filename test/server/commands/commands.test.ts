import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import type { SimulatedCommandOutcome } from '../../../agent/sim/simulated-commands.js';
import { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import {
  COMMAND_OUTPUT_MAX_BYTES,
  DIAGNOSTIC_SECTION_MAX_BYTES,
  DIAGNOSTICS_MAX_BYTES,
} from '../../../core/bounded-text.js';
import type { CommandView, CommandTargetView } from '../../../server/commands/command-view.js';
import type { Controller } from '../../../server/controller.js';
import { targetsOf, waitForJob, watchJobEvents } from '../../support/commands.js';
import { authedFetch, eventually, operatorApi, startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FAST = { jitterWindowMs: 300, initialDelayMs: 50, maxDelayMs: 500 };
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Commands on the production shape: PostgreSQL, BullMQ on Redis, simulated routers over
 * real gRPC (the routers are simulated above the contract: MIPS boxes cannot run here; their
 * diagnostics come from the captured fixture trees, their reboots drop the stream).
 */
describe('commands to a simulated fleet over real gRPC (PostgreSQL + BullMQ on Redis)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let admin: ReturnType<typeof authedFetch>;
  let adminToken: string;
  let writer: ReturnType<typeof authedFetch>;
  let fleet: SimulatedRouter[] = [];
  const extra: SimulatedRouter[] = [];
  /** Identities whose commands fail, or are never answered (scripted per test). */
  const failing = new Set<string>();
  const silent = new Set<string>();
  let routerIds: Map<string, string>;

  const outcomeOf = (id: string): SimulatedCommandOutcome =>
    silent.has(id) ? 'silent' : failing.has(id) ? 'fail' : 'ok';
  const identity = (r: SimulatedRouter) => (r as unknown as { options: { identity: string } }).options.identity;
  const idOf = (r: SimulatedRouter) => routerIds.get(identity(r))!;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    ({
      controller,
      token: adminToken,
      fetch: admin,
    } = await startTestController(db, { redisUrl: REDIS_URL, security: { insecureAgents: true } }));
    expect(controller.tasks.kind).toBe('bullmq');
    writer = await operatorApi(controller, ['write']);
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 2,
      reconnect: FAST,
      rebootDelayMs: 1_500,
      commandOutcome: outcomeOf,
    });
    await eventually(async () => controller.gateway.sessions.size === 6, 15_000, 'six agents');
    const routers = await controller.db.prisma.router.findMany({ select: { id: true, identity: true } });
    routerIds = new Map(routers.map((r) => [r.identity, r.id]));
  });

  afterAll(async () => {
    await stopFleet([...fleet, ...extra]);
    await controller?.close();
    await db?.drop();
  });

  it('check_drift on one router succeeds with the agent output; its creation and end are audited', async () => {
    const router = fleet[0]!;
    const created = await writer<CommandView>(`/v1/routers/${idOf(router)}/commands`, {
      method: 'POST',
      body: { kind: 'check_drift' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ kind: 'check_drift', total: 1, selector: { ids: [idOf(router)] } });
    const done = await waitForJob(writer, created.body.id, (j) => j.state === 'completed');
    expect(done.counts).toMatchObject({ succeeded: 1, failed: 0, sent: 0, queued: 0 });
    expect(done.finished).toBe(1);
    const target = (await targetsOf(writer, done.id)).get(idOf(router))!;
    expect(target).toMatchObject({ state: 'succeeded', reason: null, name: router['options'].name });
    expect(target.output).toBe('nothing applied, and nothing of wrtfleet on the router');
    expect(router.commands.at(-1)).toMatchObject({ commandId: done.id, ok: true });

    const audit = (await admin(`/v1/audit?command=${done.id}`)).body.items;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['command.created', 'command.completed']);
    expect(audit[0]).toMatchObject({ actor: 'token:alice', after: { kind: 'check_drift', targets: 1, refused: 0 } });
    expect(audit[1].after).toMatchObject({ counts: { succeeded: 1 }, routers: { succeeded: [idOf(router)] } });
  });

  it('a read token cannot start a command, a write token cannot reboot or detach, an admin can reboot (simulated: the stream drops and comes back)', async () => {
    const reader = await operatorApi(controller, ['read']);
    const id = idOf(fleet[1]!);
    const read = await reader(`/v1/routers/${id}/commands`, { method: 'POST', body: { kind: 'reprobe' } });
    expect(read.status).toBe(403);
    expect(read.body.message).toMatch(/"write" scope/);
    expect(
      (await reader('/v1/commands', { method: 'POST', body: { kind: 'reprobe', selector: { all: true } } })).status,
    ).toBe(403);
    for (const kind of ['reboot', 'detach']) {
      const denied = await writer(`/v1/routers/${id}/commands`, { method: 'POST', body: { kind } });
      expect(denied.status).toBe(403);
      expect(denied.body.message).toMatch(new RegExp(`a ${kind} command needs the "admin" scope`));
    }
    expect(await controller.db.prisma.command.count({ where: { kind: { in: ['reboot', 'detach'] } } })).toBe(0);

    const sessionsBefore = fleet[1]!.link.sessions;
    const reboot = await admin(`/v1/routers/${id}/commands`, { method: 'POST', body: { kind: 'reboot' } });
    expect(reboot.status).toBe(201);
    const done = await waitForJob(admin, reboot.body.id, (j) => j.state === 'completed');
    expect(done.counts.succeeded).toBe(1);
    expect((await targetsOf(admin, done.id)).get(id)!.output).toMatch(/simulated reboot/);
    // Gone, then back: the router reconnects on a new stream.
    await eventually(async () => fleet[1]!.link.sessions > sessionsBefore, 15_000, 'the rebooted router back');
    expect(fleet[1]!.reboots).toBe(1);
  });

  it('bad input is a 400 naming the field; unknown ids 404; a refusal the controller can tell is a 409 with the reason', async () => {
    const id = idOf(fleet[0]!);
    const badKind = await writer(`/v1/routers/${id}/commands`, { method: 'POST', body: { kind: 'frobnicate' } });
    expect(badKind.status).toBe(400);
    expect(badKind.body.details[0].path).toBe('/kind');
    const badTimeout = await writer('/v1/commands', {
      method: 'POST',
      body: { kind: 'reprobe', selector: { all: true }, timeoutSeconds: 0 },
    });
    expect(badTimeout.status).toBe(400);
    expect(badTimeout.body.details[0].path).toBe('/timeoutSeconds');
    const noSelector = await writer('/v1/commands', { method: 'POST', body: { kind: 'reprobe', selector: {} } });
    expect(noSelector.status).toBe(400);
    expect(noSelector.body.details[0].path).toBe('/selector');
    const nothing = await writer('/v1/commands', {
      method: 'POST',
      body: { kind: 'reprobe', selector: { soc: ['NOPE9999'] } },
    });
    expect(nothing.status).toBe(400);
    expect(nothing.body.message).toMatch(/matches no router/);
    expect((await writer('/v1/routers/no-such/commands', { method: 'POST', body: { kind: 'reprobe' } })).status).toBe(
      404,
    );
    expect((await writer('/v1/commands/no-such')).status).toBe(404);
    expect((await writer('/v1/commands/no-such/cancel', { method: 'POST' })).status).toBe(404);
    expect((await writer('/v1/commands?cursor=garbage')).body.details[0].path).toBe('/cursor');

    const rollback = await writer(`/v1/routers/${id}/commands`, { method: 'POST', body: { kind: 'rollback' } });
    expect(rollback.status).toBe(409);
    expect(rollback.body.message).toBe('rollback refused: nothing applied: nothing to roll back');
    const reapply = await writer(`/v1/routers/${id}/commands`, { method: 'POST', body: { kind: 'reapply' } });
    expect(reapply.status).toBe(409);
    expect(reapply.body.message).toMatch(/nothing applied: no revision to re-apply/);
  });

  it('on a selection, routers the controller can refuse up front are refused with the reason, never dropped', async () => {
    const created = await writer<CommandView>('/v1/commands', {
      method: 'POST',
      body: { kind: 'rollback', selector: { all: true } },
    });
    expect(created.status).toBe(201);
    const done = await waitForJob(writer, created.body.id, (j) => j.state === 'completed');
    expect(done.counts).toMatchObject({ refused: 6, queued: 0, sent: 0 });
    const targets = [...(await targetsOf(writer, done.id)).values()];
    expect(targets.every((t) => t.reason === 'nothing applied: nothing to roll back')).toBe(true);
    expect(fleet.every((r) => r.commands.every((c) => c.commandId !== done.id))).toBe(true);
  });

  it('a selection with one router offline and one failing: both reported; the offline one gets it when it comes back before the deadline; SSE shows each router', async () => {
    const [away, broken] = [fleet[2]!, fleet[3]!];
    failing.add(identity(broken));
    await away.stop();
    await eventually(
      async () => (await admin(`/v1/routers/${idOf(away)}`)).body.status === 'offline',
      10_000,
      'the stopped router offline',
    );
    const created = await writer<CommandView>('/v1/commands', {
      method: 'POST',
      body: { kind: 'reprobe', selector: { all: true }, deadlineSeconds: 120, maxInFlight: 2 },
    });
    expect(created.status).toBe(201);
    const watching = watchJobEvents(controller.httpUrl, adminToken, created.body.id);
    const waiting = await waitForJob(
      writer,
      created.body.id,
      (j) => j.counts.succeeded === 4 && j.counts.failed === 1 && j.counts.offline === 1,
    );
    expect(waiting.state).toBe('running');
    expect(waiting.finished).toBe(5);
    const offline = (await targetsOf(writer, created.body.id)).get(idOf(away))!;
    expect(offline).toMatchObject({ state: 'offline', reason: expect.stringMatching(/^offline: gets the command/) });

    // The watcher has seen it offline (its stream polls every 500 ms: a router back sooner than
    // that would go from offline to succeeded between two looks).
    await watching.until(
      (f) =>
        f.event === 'target' &&
        (f.data as CommandTargetView).routerId === idOf(away) &&
        (f.data as CommandTargetView).state === 'offline',
    );
    // The router comes back (same identity, new process) before the deadline and gets the command.
    const back = new SimulatedRouter({
      root: away['options'].root,
      controller: controller.grpcAddress,
      identity: identity(away),
      name: away['options'].name,
      reconnect: FAST,
      // Scripted as the fleet is, so later tests' silent and failing sets reach it too.
      commandOutcome: () => outcomeOf(identity(away)),
    });
    extra.push(back);
    back.start();
    const done = await waitForJob(writer, created.body.id, (j) => j.state === 'completed');
    expect(done.counts).toMatchObject({ succeeded: 5, failed: 1, offline: 0, queued: 0, sent: 0 });
    const targets = await targetsOf(writer, done.id);
    expect(targets.get(idOf(away))).toMatchObject({ state: 'succeeded', output: expect.stringMatching(/simulated/) });
    expect(targets.get(idOf(broken))).toMatchObject({
      state: 'failed',
      reason: 'simulated failure of KIND_REPROBE',
    });
    expect(back.commands.map((c) => c.commandId)).toEqual([done.id]);

    const frames = await watching.done;
    const perRouter = (routerId: string) =>
      frames
        .filter((f) => f.event === 'target' && (f.data as CommandTargetView).routerId === routerId)
        .map((f) => (f.data as CommandTargetView).state);
    expect(perRouter(idOf(away))).toEqual(expect.arrayContaining(['offline', 'succeeded']));
    expect(perRouter(idOf(away)).at(-1)).toBe('succeeded');
    expect(perRouter(idOf(broken)).at(-1)).toBe('failed');
    const failedFrame = frames.find(
      (f) =>
        f.event === 'target' &&
        (f.data as CommandTargetView).routerId === idOf(broken) &&
        (f.data as CommandTargetView).state === 'failed',
    );
    expect((failedFrame!.data as CommandTargetView).reason).toBe('simulated failure of KIND_REPROBE');
    const progress = frames.filter((f) => f.event === 'progress').map((f) => f.data as CommandView);
    expect(progress.at(-1)).toMatchObject({ state: 'completed', finished: 6, total: 6 });
    expect(progress.map((p) => p.finished)).toEqual([...progress.map((p) => p.finished)].sort((a, b) => a - b));
    expect(frames.at(-1)).toEqual({ event: 'end', data: { state: 'completed' } });
    failing.clear();
  });

  it('cancel mid-job: queued routers become cancelled, the one with the command times out; cancel again is a 409', async () => {
    for (const r of [...fleet, ...extra]) silent.add(identity(r));
    const created = await writer<CommandView>('/v1/commands', {
      method: 'POST',
      body: { kind: 'check_drift', selector: { all: true }, maxInFlight: 1, timeoutSeconds: 2 },
    });
    await waitForJob(writer, created.body.id, (j) => j.counts.sent === 1);
    const cancelled = await writer<CommandView>(`/v1/commands/${created.body.id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ state: 'cancelled', cancelledBy: 'token:alice' });
    expect(cancelled.body.counts).toMatchObject({ cancelled: 5, sent: 1, queued: 0 });
    const targets = [...(await targetsOf(writer, created.body.id, '&state=cancelled')).values()];
    expect(targets).toHaveLength(5);
    expect(targets.every((t) => t.reason === 'cancelled by token:alice')).toBe(true);
    const after = await waitForJob(writer, created.body.id, (j) => j.counts.timed_out === 1, 15_000);
    expect(after).toMatchObject({ state: 'cancelled', finished: 6 });
    expect((await targetsOf(writer, created.body.id, '&state=timed_out')).size).toBe(1);
    const again = await writer(`/v1/commands/${created.body.id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/the command is cancelled/);
    const audit = (await admin(`/v1/audit?command=${created.body.id}`)).body.items;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['command.created', 'command.cancelled']);
    expect(audit[1].after.counts).toMatchObject({ cancelled: 5, sent: 1 });
    silent.clear();
  });

  it('diagnostics: a bundle from the fixture captures; a router with huge logs is held to the bounds (simulated)', async () => {
    const router = fleet[4]!;
    const created = await writer<CommandView>(`/v1/routers/${idOf(router)}/commands`, {
      method: 'POST',
      body: { kind: 'diagnostics' },
    });
    const done = await waitForJob(writer, created.body.id, (j) => j.state === 'completed');
    expect(done.counts.succeeded).toBe(1);
    const target = (await targetsOf(writer, done.id, '&sections=true')).get(idOf(router))!;
    const sections = Object.fromEntries(target.sections!.map((s) => [s.name, s]));
    expect(Object.keys(sections)).toEqual(['logread', 'dmesg', 'nftables', 'bpf']);
    expect(sections.logread).toMatchObject({ command: 'logread -l 500', error: '', truncated: false });
    expect(sections.logread!.text).toMatch(/netifd: Interface 'wan' is now up/);
    expect(sections.dmesg!.text).toMatch(/Linux version/);
    expect(sections.nftables).toMatchObject({ command: 'nft list ruleset' });
    expect(sections.nftables!.text).toMatch(/^table inet fw4 \{/);
    expect(sections.bpf!.text).toMatch(/^simulated router: no kernel runs here/);
    expect(target.output).toMatch(/^diagnostic bundle: 4 sections\nlogread: [\d.]+ KiB from logread -l 500/);
    // Sections are left out of a listing unless asked for.
    expect((await targetsOf(writer, done.id)).get(idOf(router))!.sections).toBeUndefined();

    // A router tree whose logs are far past the bounds.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wf-huge-logs-'));
    try {
      await cp(router['options'].root, dir, { recursive: true });
      const line = (i: number) =>
        `[${String(i).padStart(12)}] kernel: a noisy driver says hello again ${'~'.repeat(40)}\n`;
      await writeFile(path.join(dir, 'commands/dmesg'), Array.from({ length: 40_000 }, (_, i) => line(i)).join(''));
      await writeFile(path.join(dir, 'commands/logread-l-500'), 'é'.repeat(600_000));
      await writeFile(
        path.join(dir, 'commands/nft-list-ruleset'),
        `table inet fw4 {\n${'\tchain x { }\n'.repeat(30_000)}}\n`,
      );
      const noisy = new SimulatedRouter({
        root: dir,
        controller: controller.grpcAddress,
        identity: 'sim.noisy:001',
        name: 'noisy-001',
        reconnect: FAST,
      });
      extra.push(noisy);
      noisy.start();
      const noisyId = await eventually(
        async () => (await controller.db.prisma.router.findUnique({ where: { identity: 'sim.noisy:001' } }))?.id,
        10_000,
        'the noisy router registered',
      );
      const job = await writer<CommandView>(`/v1/routers/${noisyId}/commands`, {
        method: 'POST',
        body: { kind: 'diagnostics' },
      });
      await waitForJob(writer, job.body.id, (j) => j.state === 'completed');
      const bundle = (await targetsOf(writer, job.body.id, '&sections=true')).get(noisyId)!;
      expect(bundle.state).toBe('succeeded');
      const texts = bundle.sections!;
      for (const s of texts) expect(bytes(s.text)).toBeLessThanOrEqual(DIAGNOSTIC_SECTION_MAX_BYTES);
      expect(texts.reduce((n, s) => n + bytes(s.text), 0)).toBeLessThanOrEqual(DIAGNOSTICS_MAX_BYTES);
      expect(bytes(bundle.output!)).toBeLessThanOrEqual(COMMAND_OUTPUT_MAX_BYTES);
      const dmesg = texts.find((s) => s.name === 'dmesg')!;
      expect(dmesg.truncated).toBe(true);
      // The newest lines are kept, whole.
      expect(dmesg.text.trimEnd().split('\n').at(-1)).toBe(line(39_999).trimEnd());
      expect(texts.find((s) => s.name === 'logread')!.text).not.toContain('\ufffd');
      expect(texts.find((s) => s.name === 'nftables')!.text.startsWith('table inet fw4 {')).toBe(true);
      expect(bundle.output).toMatch(/dmesg: 6\d\.\d KiB from dmesg, cut to its bound/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("GET /v1/commands pages newest first; the audit chain and every job's creating event verify", async () => {
    const first = await writer('/v1/commands?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    const all: CommandView[] = [...first.body.items];
    let cursor = first.body.nextCursor;
    while (cursor) {
      const page = await writer(`/v1/commands?limit=2&cursor=${cursor}`);
      all.push(...page.body.items);
      cursor = page.body.nextCursor;
    }
    const stored = await controller.db.prisma.command.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    expect(all.map((j) => j.id)).toEqual(stored.map((j) => j.id));
    const diag = await writer('/v1/commands?kind=diagnostics');
    expect(diag.body.items.every((j: CommandView) => j.kind === 'diagnostics')).toBe(true);
    expect(diag.body.items.length).toBe(2);
    const verdict = await admin('/v1/audit/verify');
    expect(verdict.body).toMatchObject({ ok: true, missingCount: 0 });
  });
});
