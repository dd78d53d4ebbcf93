import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKeyAndCsr } from '../../agent/enrollment/agent-credentials.js';
import type { Controller } from '../../server/controller.js';
import { peerAddress } from '../../server/pki/enrollment-admission.js';
import { rawEnroll } from '../support/agents.js';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

describe('Enroll with wrong tokens is throttled per peer address like failed REST authentication', () => {
  let db: TestDatabase;
  let controller: Controller;
  let logs: string[];
  let api: Awaited<ReturnType<typeof startTestController>>['fetch'];

  beforeAll(async () => {
    db = await createPgliteDatabase();
    // The default limit (WRTFLEET_AUTH_FAILURES_PER_MINUTE, 20), as operators get it.
    ({ controller, logs, fetch: api } = await startTestController(db, { security: { insecureAgents: false } }));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('50 wrong tokens: 20 UNAUTHENTICATED, then RESOURCE_EXHAUSTED, even for a valid token, which stays unspent', async () => {
    const { csrPem } = await newKeyAndCsr('lab:guess');
    const codes: number[] = [];
    let lastDetails = '';
    for (let i = 0; i < 50; i++) {
      const r = await rawEnroll(controller, `wfe_guess-${i}`, 'lab:guess', csrPem);
      codes.push(r.code);
      lastDetails = r.details;
    }
    expect(codes.slice(0, 20)).toEqual(Array(20).fill(GrpcStatus.UNAUTHENTICATED));
    expect(codes.slice(20)).toEqual(Array(30).fill(GrpcStatus.RESOURCE_EXHAUSTED));
    expect(lastDetails).toMatch(/^too many failed enrollments from this address; retry in \d+ s$/);

    const valid = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    const blocked = await rawEnroll(controller, valid.secret, 'lab:late', (await newKeyAndCsr('lab:late')).csrPem);
    expect(blocked.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect((await controller.security.enrollmentTokens.get(valid.record.id))!.usedAt).toBeNull();
    expect(await controller.db.prisma.router.count()).toBe(0);

    // One warning per refused token up to the limit and one when it is reached: not one per call.
    const warnings = logs.filter((l) => l.includes('"level":40') && l.includes('enrollment'));
    expect(warnings).toHaveLength(21);
    for (const l of warnings) expect(l).not.toContain('wfe_guess');
    // The REST door keeps its own count: the admin API still answers from the same address.
    expect((await api('/v1/enrollment-tokens')).status).toBe(200);
  });

  it('counts per address, not per connection: the port is dropped from the gRPC peer', () => {
    expect(peerAddress('127.0.0.1:53412')).toBe('127.0.0.1');
    expect(peerAddress('::1:53412')).toBe('::1');
    expect(peerAddress('[::1]:53412')).toBe('::1');
    expect(peerAddress('unix:/run/wrtfleet.sock')).toBe('unix:/run/wrtfleet.sock');
  });
});
