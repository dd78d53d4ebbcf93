import { X509Certificate } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ControllerLink, type LinkState, type Refusal } from '../../agent/controller-link.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import type { Controller } from '../../server/controller.js';
import { enrollThroughController } from '../../server/pki/local-enrollment.js';
import { enrollTestAgent, helloFor } from '../support/agents.js';
import { eventually, startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A backoff that would redial every few tens of milliseconds: a refused router must not follow it. */
const FAST = { initialDelayMs: 20, maxDelayMs: 100, jitterWindowMs: 50 };

/**
 * A router the controller refuses for good (its certificate revoked, the router decommissioned)
 * over real mutual TLS: the agent says so once, in words naming what to do, and stops dialling
 * but for a rare check. Before, the demo's decommissioned router redialled every 2.6 s forever
 * (143 "certificate was revoked" warnings in the controller's log in 6 minutes).
 */
describe('an agent refused for good stops dialling (mTLS, PGlite)', () => {
  let db: TestDatabase;
  let controller: Controller;
  let api: Awaited<ReturnType<typeof startTestController>>['fetch'];
  let link: ControllerLink | undefined;
  let fleet: SimulatedRouter[] = [];
  const stopping = new AbortController();

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, fetch: api } = await startTestController(db, { security: { insecureAgents: false } }));
  });
  afterEach(async () => {
    await link?.stop();
    link = undefined;
  });
  afterAll(async () => {
    stopping.abort();
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  /** A link for `identity`, counting its dials and what it reports. */
  async function connectedLink(identity: string, refusedCheckMs?: number) {
    const creds = await enrollTestAgent(controller, identity);
    const dials: number[] = [];
    const refusals: Refusal[] = [];
    link = new ControllerLink({
      address: controller.grpcAddress,
      homeKey: identity,
      credentials: creds.linkCredentials,
      hello: async () => helloFor(identity).body!.value as never,
      reconnect: { ...FAST, ...(refusedCheckMs ? { refusedCheckMs } : {}) },
    });
    link.on('state', (s: LinkState) => s === 'connecting' && dials.push(Date.now()));
    link.on('refused', (r: Refusal) => refusals.push(r));
    link.on('error', () => {});
    const welcomed = new Promise((r) => link!.once('welcome', r));
    link.start();
    await welcomed;
    return { creds, dials, refusals, link };
  }

  it('a revoked certificate: one refusal naming re-enrolment, then no dial for the hour', async () => {
    const { creds, dials, refusals } = await connectedLink('lab:revoked-link');
    const serial = new X509Certificate(creds.identity.certificatePem).serialNumber;
    expect((await api(`/v1/certificates/${serial}/revoke`, { method: 'POST' })).status).toBe(204);
    await eventually(async () => refusals.length === 1, 5_000);
    const dialsAtRefusal = dials.length;
    // Under the old behaviour the FAST backoff redials ~30 times in these 1.5 s.
    await sleep(1_500);
    expect(dials.length).toBe(dialsAtRefusal);
    expect(refusals).toHaveLength(1);
    expect(link!.state).toBe('refused');
    expect(refusals[0]!.code).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(refusals[0]!.details).toMatch(/revoked/);
    expect(refusals[0]!.message).toMatch(/re-enroll/);
    expect(refusals[0]!.message).toMatch(/\/v1\/routers\/\{id\}\/re-enroll/);
    expect(refusals[0]!.checkInMs).toBeGreaterThanOrEqual(30 * 60_000);
  });

  it('a decommissioned router: its rare checks are refused again without a second report', async () => {
    const { dials, refusals } = await connectedLink('lab:retired-link', 400);
    const router = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: 'lab:retired-link' } });
    expect((await api(`/v1/routers/${router.id}/decommission`, { method: 'POST' })).status).toBe(200);
    await eventually(async () => refusals.length === 1, 5_000);
    const before = dials.length;
    await sleep(1_500);
    // Checks every 200-600 ms here (every 30-90 min by default): a few, each refused, one report.
    expect(dials.length - before).toBeGreaterThanOrEqual(1);
    expect(dials.length - before).toBeLessThanOrEqual(8);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.details).toMatch(/decommissioned/);
  });

  it('the simulated fleet tells a decommissioned router once and stops it dialling', async () => {
    const roots = (await fixtureModels(defaultFixturesDir())).slice(0, 1);
    const told: { identity: string; message: string }[] = [];
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: roots,
      perModel: 2,
      reconnect: FAST,
      credentialsFor: (identity, name) =>
        enrollThroughController(controller.security, controller.grpcAddress, { identity, name }, 'test'),
      onEnrollFailure: () => {},
      onRefused: (identity, message) => told.push({ identity, message }),
      signal: stopping.signal,
    });
    await eventually(async () => fleet.every((r) => r.link.state === 'connected'), 15_000);
    const [retired, kept] = fleet as [SimulatedRouter, SimulatedRouter];
    const row = await controller.db.prisma.router.findUniqueOrThrow({ where: { identity: retired.identity } });
    let dials = 0;
    retired.link.on('state', (s: LinkState) => s === 'connecting' && dials++);
    expect((await api(`/v1/routers/${row.id}/decommission`, { method: 'POST' })).status).toBe(200);
    await eventually(async () => told.length === 1, 5_000);
    await sleep(1_500);
    expect(dials).toBe(0);
    expect(told).toEqual([{ identity: retired.identity, message: expect.stringMatching(/re-enroll/) }]);
    expect(kept.link.state).toBe('connected');
    // The fleet restarted on the same data (the demo's restart): its enrollment is refused
    // for good and not retried; the other router enrolls again and connects.
    await stopFleet(fleet);
    const enrollFailures: string[] = [];
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: roots,
      perModel: 2,
      reconnect: FAST,
      credentialsFor: (identity, name) =>
        enrollThroughController(controller.security, controller.grpcAddress, { identity, name }, 'test'),
      onEnrollFailure: (identity) => enrollFailures.push(identity),
      onRefused: (identity, message) => told.push({ identity, message }),
      signal: stopping.signal,
    });
    await eventually(async () => told.length === 2, 5_000);
    expect(told[1]).toEqual({ identity: retired.identity, message: expect.stringMatching(/decommissioned/) });
    expect(enrollFailures).toEqual([]);
    expect(fleet.map((r) => r.identity)).toEqual([kept.identity]);
    await eventually(async () => fleet[0]!.link.state === 'connected', 15_000);
  });
});
