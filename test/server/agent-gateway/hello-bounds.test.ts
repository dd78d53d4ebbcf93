import { credentials, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectFacts } from '../../../core/facts/index.js';
import { predictCapabilities } from '../../../core/capabilities.js';
import { helloMessage } from '../../../agent/hello.js';
import { FixtureHost } from '../../../agent/sim/fixture-host.js';
import { defaultFixturesDir, fixtureModels } from '../../../agent/sim/fixtures.js';
import {
  AgentServiceClient,
  type AgentMessage,
  type ControllerMessage,
  type Hello,
} from '../../../proto/gen/wrtfleet/agent/v1/agent.js';
import type { Controller } from '../../../server/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';
import { startTestController } from '../../support/controller.js';

/** Sends one Hello on a raw Connect stream; resolves with the Welcome or the status that ended the stream. */
function sayHello(address: string, hello: Hello): Promise<{ code: number; details: string }> {
  const client = new AgentServiceClient(address, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
  const stream = client.connect();
  const message: AgentMessage = { seq: 1, sentAt: new Date(), body: { $case: 'hello', value: hello } };
  return new Promise((resolve) => {
    const done = (code: number, details: string) => {
      stream.cancel();
      client.close();
      resolve({ code, details });
    };
    stream.on('data', (m: ControllerMessage) => {
      if (m.body?.$case === 'welcome') done(GrpcStatus.OK, 'welcome');
    });
    stream.on('error', (err: ServiceError) => done(err.code, err.details));
    stream.write(message);
  });
}

const repeat = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

/** A Struct `depth` objects deep: {"a": {"a": ... {}}}. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('Hello size bounds over real gRPC (PostgreSQL)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let realHello: Hello;

  beforeAll(async () => {
    db = await createPostgresDatabase();
    ({ controller } = await startTestController(db));
    const [root] = await fixtureModels(defaultFixturesDir());
    const facts = await collectFacts(new FixtureHost(root!));
    realHello = helloMessage({
      identity: 'bounds-real',
      name: 'bounds-real',
      placement: 'proxy',
      facts,
      predicted: predictCapabilities(facts),
    });
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  /** The real fixture Hello under `identity`, changed by `change`. */
  const variant = (identity: string, change: (h: Hello) => void): Hello => {
    const hello = structuredClone(realHello);
    hello.router = { identity, name: identity };
    change(hello);
    return hello;
  };

  it('accepts a Hello collected from a real router tree', async () => {
    expect(
      await sayHello(
        controller.grpcAddress,
        variant('bounds-ok', () => {}),
      ),
    ).toEqual({
      code: GrpcStatus.OK,
      details: 'welcome',
    });
  });

  const oversized: [field: RegExp, change: (h: Hello) => void][] = [
    [/facts\.wanDevices\[0\]/, (h) => (h.facts!.wanDevices = ['w'.repeat(12_000)])],
    [/facts\.wanDevices/, (h) => (h.facts!.wanDevices = repeat(64, (i) => `wan${i}`))],
    [/facts\.lanDevices\[1\]/, (h) => (h.facts!.lanDevices = ['lan', 'l'.repeat(16)])],
    [/facts\.packages/, (h) => (h.facts!.packages = Object.fromEntries(repeat(2000, (i) => [`pkg-${i}`, '1.0-r1'])))],
    [/facts\.packages\["big"\]/, (h) => (h.facts!.packages = { big: 'v'.repeat(3_500) })],
    [/facts\.packages/, (h) => (h.facts!.packages = { ['n'.repeat(3_500)]: '1.0' })],
    [/facts\.unknown\[0\]\.reason/, (h) => (h.facts!.unknown = [{ field: 'soc', reason: 'r'.repeat(900_000) }])],
    [/facts\.unknown/, (h) => (h.facts!.unknown = repeat(200, (i) => ({ field: `f${i}`, reason: 'x' })))],
    [
      /capabilities\.predicted\.ebpf\.reason/,
      (h) => (h.capabilities!.predicted!.ebpf = { value: true, reason: 'r'.repeat(900_000) }),
    ],
    [
      /capabilities\.probed\.tcx\.reason/,
      (h) => (h.capabilities!.probed = { tcx: { value: false, reason: 'r'.repeat(5_000) } } as never),
    ],
    [
      /live\.datapath\.interfaces/,
      (h) =>
        (h.live = {
          datapath: { mode: 2, interfaces: repeat(20_000, (i) => `eth${i}`), programs: [] },
          offload: undefined,
        }),
    ],
    [
      /live\.datapath\.programs/,
      (h) =>
        (h.live = { datapath: { mode: 2, interfaces: [], programs: repeat(100, (i) => `p${i}`) }, offload: undefined }),
    ],
    [
      /live\.offload\.reason/,
      (h) => (h.live = { datapath: undefined, offload: { mode: 1, reason: 'r'.repeat(5_000) } }),
    ],
    [/facts\.extra/, (h) => (h.facts!.extra = { blob: 'x'.repeat(900_000) })],
    [/facts\.openwrt\.revision/, (h) => (h.facts!.openwrt!.revision = 'r'.repeat(1_000))],
    [/agent\.proxyHost/, (h) => (h.agent!.proxyHost = 'h'.repeat(1_000))],
    [/applied\.planHash/, (h) => (h.applied = { profile: 'p', revision: 1, planHash: 'h'.repeat(1_000) } as never)],
    [/applied\.profile/, (h) => (h.applied = { profile: 'p'.repeat(1_000), revision: 1, planHash: 'h' } as never)],
  ];

  it.each(oversized.map(([field, change], i) => [field.source, change, i] as const))(
    'refuses an oversized %s with INVALID_ARGUMENT naming it, storing nothing',
    async (field, change, i) => {
      const identity = `bounds-bad-${i}`;
      const r = await sayHello(controller.grpcAddress, variant(identity, change));
      expect(r.code, r.details).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(r.details).toMatch(new RegExp(field));
      expect(await controller.db.prisma.router.count({ where: { identity } })).toBe(0);
    },
  );

  it('refuses a Struct nested 60 deep in facts.extra with INVALID_ARGUMENT, not INTERNAL', async () => {
    const r = await sayHello(
      controller.grpcAddress,
      variant('bounds-deep', (h) => (h.facts!.extra = nested(60))),
    );
    expect(r.code, r.details).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(r.details).toMatch(/facts\.extra/);
    // A moderately nested document, as real facts have, still passes.
    const ok = await sayHello(
      controller.grpcAddress,
      variant('bounds-nested-ok', (h) => (h.facts!.extra = { ...h.facts!.extra, deep: nested(6) })),
    );
    expect(ok.code, ok.details).toBe(GrpcStatus.OK);
  });

  it('keeps the largest Hello it accepts small on GET /v1/routers/{id}', async () => {
    // Every bounded field at its maximum: what one agent can make the controller store and serve.
    const r = await sayHello(
      controller.grpcAddress,
      variant('bounds-max', (h) => {
        const f = h.facts!;
        f.wanDevices = repeat(16, (i) => `wan${i}`.padEnd(15, 'x'));
        f.lanDevices = repeat(64, (i) => `lan${i}`.padEnd(15, 'x'));
        f.packages = Object.fromEntries(repeat(1024, (i) => [`p${i}`.padEnd(64, 'x'), 'v'.repeat(64)]));
        f.unknown = repeat(32, (i) => ({ field: `f${i}`.padEnd(64, 'x'), reason: 'r'.repeat(512) }));
        f.extra = { blob: 'x'.repeat(15_000) };
      }),
    );
    expect(r.code, r.details).toBe(GrpcStatus.OK);
    const row = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: 'bounds-max' } });
    const res = await fetch(`${controller.httpUrl}/v1/routers/${row.id}`, {
      headers: {
        authorization: `Bearer ${(await controller.tokens.create({ name: 'r', owner: 't', scopes: ['read'], createdBy: 't' })).secret}`,
      },
    });
    expect(res.status).toBe(200);
    expect((await res.text()).length).toBeLessThan(256 * 1024);
  });
});
