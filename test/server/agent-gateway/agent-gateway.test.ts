import { Client, credentials, Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import { RouterAgent } from '../../../agent/router-agent.js';
import type { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import { FixtureHost } from '../../../agent/sim/fixture-host.js';
import {
  AgentServiceClient,
  ApplyResult_Status,
  type AgentMessage,
  type ControllerMessage,
  type Hello,
} from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import type { RouterSummary } from '../../../server/fleet/router-directory.js';
import { helloFor, openStream, type OpenStream } from '../../support/agents.js';
import { BACKENDS, type TestDatabase } from '../../support/databases.js';
import { authedFetch, eventually, startTestController } from '../../support/controller.js';
import { freePort } from '../../support/ports.js';

const EXPECTED = {
  'tplink-archer-c7-v2': { soc: 'QCA9558', arch: 'mips_24kc', endian: 'big', kernel: '5.15.150' },
  'kt-km14-102h-mt7621': { soc: 'MT7621', arch: 'mipsel_24kc', endian: 'little', kernel: '6.6.110' },
  'glinet-gl-mt6000-mt7986': { soc: 'MT7986', arch: 'aarch64_cortex-a53', endian: 'little', kernel: '5.15.150' },
} as const;

/** Opens a raw Connect stream, sends `messages`, and resolves with how the controller ended it. */
function rawStream(
  address: string,
  messages: AgentMessage[],
): Promise<{ code: number; details: string; received: ControllerMessage[] }> {
  const client = new AgentServiceClient(address, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
  const stream = client.connect();
  const received: ControllerMessage[] = [];
  return new Promise((resolve) => {
    stream.on('data', (m: ControllerMessage) => received.push(m));
    stream.on('error', (err: ServiceError) => {
      client.close();
      resolve({ code: err.code, details: err.details, received });
    });
    stream.on('end', () => {
      client.close();
      resolve({ code: GrpcStatus.OK, details: 'ended', received });
    });
    for (const m of messages) stream.write(m);
  });
}

const goodHello = (identity: string): AgentMessage => helloFor(identity);

describe.each(BACKENDS)('agents and controller over real gRPC on loopback (%s)', (_name, createDatabase) => {
  let db: TestDatabase;
  let controller: Controller;
  let logs: string[];
  let api: ReturnType<typeof authedFetch>;
  let fleet: SimulatedRouter[] = [];

  beforeAll(async () => {
    db = await createDatabase();
    // Two connects a second: the Welcome's reconnect spread is then 0-1 s for three agents.
    ({ controller, logs, fetch: api } = await startTestController(db, { agentAdmissionRate: 2 }));
    const roots = await fixtureModels(defaultFixturesDir());
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: roots,
      perModel: 1,
      reconnect: { jitterWindowMs: 200, initialDelayMs: 50, maxDelayMs: 500 },
    });
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  it('registers every fixture model with the SoC, arch, endianness and kernel its agent found', async () => {
    const { body } = await eventually(
      async () => {
        const r = await api('/v1/routers?limit=100');
        return r.body.items?.length === 3 && r.body.items.every((i: RouterSummary) => i.status === 'online')
          ? r
          : undefined;
      },
      15_000,
      'three online routers',
    );
    for (const [model, want] of Object.entries(EXPECTED)) {
      const router = body.items.find((r: RouterSummary) => r.name === `${model}-001`);
      expect(router, model).toBeDefined();
      expect({ soc: router.soc, arch: router.arch, endian: router.endian, kernel: router.kernel }).toEqual(want);
      expect(router.placement).toBe('proxy');
      expect(router.lastSeenAt).not.toBeNull();
    }
  });

  it('spreads reconnections by the streams it has held: each Welcome names floor(peak streams / admission rate) s', async () => {
    await eventually(async () => fleet.every((r) => r.link.welcome), 15_000, 'three welcomed');
    const spreads = fleet.map((r) => r.link.welcome!.reconnectSpreadSeconds).sort();
    // The first connect found 1 stream (0 s: the agent's own window), the later ones 2 and 3 (1 s).
    expect(spreads).toEqual([0, 1, 1]);
  });

  it('serves one router with facts, capabilities and connection status', async () => {
    const list = await api('/v1/routers?soc=mt7621');
    expect(list.body.items).toHaveLength(1);
    const { status, body } = await api(`/v1/routers/${list.body.items[0].id}`);
    expect(status).toBe(200);
    expect(body.status).toBe('online');
    expect(body.capabilities.predicted).toMatchObject({
      hardwareOffload: { value: true },
      tcx: { value: true },
      ebpf: { value: true },
    });
    expect(body.capabilities.predicted.hardwareOffload.reason).toMatch(/MT7621/);
    expect(body.facts.openwrt).toMatchObject({ version: '24.10.4', target: 'ramips/mt7621' });
    expect(body.facts.network.wan).toContain('wan');
    expect(body.appliedRevision).toBeNull();
  });

  it('audits each registration with the agent as the actor, in a hash chain', async () => {
    const events = await controller.db.prisma.auditEvent.findMany({
      where: { action: 'router.registered' },
      orderBy: { seq: 'asc' },
    });
    expect(events).toHaveLength(3);
    expect(events[0]!.actor).toMatch(/^agent:sim\./);
    for (let i = 1; i < events.length; i++) expect(events[i]!.prevHash).toBe(events[i - 1]!.hash);
  });

  it('closes a stream whose Hello is malformed with INVALID_ARGUMENT naming the field, and keeps serving the others', async () => {
    const bad = await rawStream(controller.grpcAddress, [goodHello('bad identity with spaces')]);
    expect(bad.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(bad.details).toMatch(/router\.identity/);
    expect(logs.some((l) => l.includes('closing agent stream') && l.includes('router.identity'))).toBe(true);
    const noVersion = goodHello('ok-identity');
    (noVersion.body as { $case: 'hello'; value: Hello }).value.agent!.version = '';
    expect((await rawStream(controller.grpcAddress, [noVersion])).details).toMatch(/agent\.version/);
    // The fleet is untouched: still three online routers, with sessions on this replica.
    expect(controller.gateway.sessions.size).toBe(3);
  });

  it('requires the first message to be a Hello', async () => {
    const r = await rawStream(controller.grpcAddress, [
      { seq: 1, sentAt: new Date(), body: { $case: 'heartbeat', value: { uptimeSeconds: 1 } } },
    ]);
    expect(r.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(r.details).toMatch(/first message/);
  });

  it('survives a corrupt message: that stream ends with an error status, the others stay', async () => {
    const client = new Client(controller.grpcAddress, credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
    });
    const stream = client.makeBidiStreamRequest(
      '/wrtfleet.agent.v1.AgentService/Connect',
      (b: Buffer) => b,
      (b: Buffer) => b,
      new Metadata(),
    );
    const ended = new Promise<ServiceError>((resolve) => stream.on('error', resolve));
    // Field 10 (hello) declared as a 200-byte submessage, with only 3 bytes behind it.
    stream.write(Buffer.from([0x52, 0xc8, 0x01, 0x0a, 0x01, 0x41]));
    const err = await ended;
    client.close();
    expect(err.code).not.toBe(GrpcStatus.OK);
    expect(controller.gateway.sessions.size).toBe(3);
    const after = await rawStream(controller.grpcAddress, [goodHello('after-corruption')]);
    expect(after.received[0]?.body?.$case).toBe('welcome');
  });

  it('refuses a decommissioned router with PERMISSION_DENIED', async () => {
    const router = await controller.db.prisma.router.create({
      data: { name: 'retired', identity: 'retired:00:11', decommissionedAt: new Date() },
    });
    const r = await rawStream(controller.grpcAddress, [goodHello(router.identity)]);
    expect(r.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(r.details).toMatch(/decommissioned/);
  });

  it('records an ApplyResult re-sent after a lost Ack once (per result_id), and acks it every time', async () => {
    const identity = 'resend:01';
    const result = (seq: number, resultId: string): AgentMessage => ({
      seq,
      sentAt: new Date(),
      body: {
        $case: 'applyResult',
        value: {
          resultId,
          profile: '',
          revision: 0,
          status: ApplyResult_Status.STATUS_FAILED,
          error: 'simulated failure',
          evidence: undefined,
          startedAt: new Date(1_000),
          finishedAt: new Date(2_000),
          planHash: '',
        },
      },
    });
    const acks = (s: OpenStream) =>
      s
        .received()
        .filter((m) => m.body?.$case === 'ack')
        .map((m) => (m.body as { value: { agentSeq: number } }).value.agentSeq);
    // First stream: the result arrives and is stored, then the stream breaks (its Ack lost, as far as the agent knows).
    const first = openStream(controller.grpcAddress, credentials.createInsecure(), identity);
    await first.welcome;
    first.write(result(2, 'r-1'));
    await eventually(async () => acks(first).includes(2), 10_000, 'the first Ack');
    first.close();
    // Next stream: the agent sends it again, plus a new result; and once more on the same stream.
    const second = openStream(controller.grpcAddress, credentials.createInsecure(), identity);
    await second.welcome;
    second.write(result(2, 'r-1'));
    second.write(result(3, 'r-2'));
    second.write(result(4, 'r-1'));
    await eventually(async () => acks(second).length === 3, 10_000, 'three Acks');
    second.close();
    expect(acks(second).sort()).toEqual([2, 3, 4]);
    const router = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity } });
    const rows = await controller.db.prisma.applyResult.findMany({
      where: { routerId: router.id },
      select: { agentResultId: true },
    });
    expect(rows.map((r) => r.agentResultId).sort()).toEqual(['r-1', 'r-2']);
    const audited = await controller.db.prisma.auditEvent.findMany({
      where: { targetId: router.id, action: 'apply.failed' },
    });
    expect(audited).toHaveLength(2);
  });

  it('marks a router offline when its agent stops', async () => {
    const agent = new RouterAgent({
      host: new FixtureHost(`${defaultFixturesDir()}/kt-km14-102h-mt7621`),
      controller: controller.grpcAddress,
      placement: 'on_router',
      identity: 'short-lived:01',
    });
    agent.start();
    await eventually(
      async () =>
        (await controller.db.prisma.router.findUnique({ where: { identity: 'short-lived:01' } }))?.status === 'online',
      10_000,
      'online',
    );
    await agent.stop();
    await eventually(
      async () =>
        (await controller.db.prisma.router.findUnique({ where: { identity: 'short-lived:01' } }))?.status === 'offline',
      10_000,
      'offline',
    );
  });
});

describe('reconnect after a controller restart (embedded PGlite, same data directory and port)', () => {
  it('the agent comes back by itself and the router stays the same row', async () => {
    const db = await BACKENDS[0][1]();
    const grpcPort = await freePort();
    let { controller } = await startTestController(db, { grpcPort });
    const agent = new RouterAgent({
      host: new FixtureHost(`${defaultFixturesDir()}/tplink-archer-c7-v2`),
      controller: controller.grpcAddress,
      placement: 'proxy',
      identity: 'restart-test:01',
      reconnect: { jitterWindowMs: 500, initialDelayMs: 100, maxDelayMs: 1_000 },
    });
    try {
      agent.start();
      await eventually(async () => agent.link.sessions === 1, 10_000, 'first session');
      const first = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: 'restart-test:01' } });
      await controller.close();
      await eventually(
        async () => agent.link.state === 'waiting' || agent.link.state === 'connecting',
        5_000,
        'agent noticing the loss',
      );
      ({ controller } = await startTestController(db, { grpcPort }));
      await eventually(async () => agent.link.sessions === 2, 15_000, 'second session');
      const again = await eventually(
        async () => {
          const r = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: 'restart-test:01' } });
          return r.status === 'online' ? r : undefined;
        },
        5_000,
        'online again',
      );
      expect(again.id).toBe(first.id);
      expect(await controller.db.prisma.router.count()).toBe(1);
    } finally {
      await agent.stop();
      await controller.close();
      await db.drop();
    }
  });
});
