import { afterAll, describe, expect, it } from 'vitest';
import { defaultFixturesDir } from '../../../agent/sim/fixtures.js';
import { SimulatedRouter } from '../../../agent/sim/simulated-router.js';
import type { Controller } from '../../../server/controller.js';
import { eventually, startTestController } from '../../support/controller.js';
import { createPostgresDatabase, type TestDatabase } from '../../support/databases.js';

const FLAPS = 25;

/**
 * An agent whose link flaps (the agent restarts, or its uplink drops, every second) must not
 * grow the database or the controller with every connection: no rows per connect, no audit
 * event per connect, no sessions or listeners left behind.
 */
describe('a flapping agent (PostgreSQL)', () => {
  let db: TestDatabase | undefined;
  let controller: Controller | undefined;
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  const rowCounts = async () => {
    const prisma = controller!.db.prisma;
    const tables = await prisma.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`;
    const counts: Record<string, number> = {};
    for (const { table_name } of tables) {
      const [row] = await prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${table_name}"`);
      counts[table_name] = Number(row!.n);
    }
    return counts;
  };

  it(`connects and drops ${FLAPS} times, and leaves the same rows, events and sessions as after the first`, async () => {
    db = await createPostgresDatabase();
    controller = (await startTestController(db)).controller;
    const root = `${defaultFixturesDir()}/kt-km14-102h-mt7621`;
    const connectOnce = async () => {
      const router = new SimulatedRouter({
        root,
        controller: controller!.grpcAddress,
        identity: 'sim.flapper:001',
        name: 'flapper',
        reconnect: { jitterWindowMs: 100, initialDelayMs: 50, maxDelayMs: 200 },
      });
      router.start();
      await eventually(async () => router.link.state === 'connected', 10_000, 'connected');
      await new Promise((r) => setTimeout(r, 200));
      await router.stop();
      await eventually(async () => controller!.gateway.sessions.size === 0, 10_000, 'session closed');
    };

    await connectOnce();
    const before = await rowCounts();
    for (let i = 1; i < FLAPS; i++) await connectOnce();
    const after = await rowCounts();

    expect(after).toEqual(before);
    expect(before.Router).toBe(1);
    expect(controller.gateway.sessions.size).toBe(0);
  }, 120_000);
});
