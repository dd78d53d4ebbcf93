import { credentials as grpcCredentials, Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKeyAndCsr } from '../../agent/enrollment/agent-credentials.js';
import { AgentServiceClient, type EnrollResponse } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { RETRY_AFTER_METADATA } from '../../server/agent-gateway/hello-admission.js';
import type { Controller } from '../../server/controller.js';
import { peerAddress } from '../../server/pki/enrollment-admission.js';
import { EnrollRefused } from '../../server/pki/enroll-refused.js';
import { startTestController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

interface Outcome {
  code: number;
  details: string;
  retryAfterMs?: string;
  response?: EnrollResponse;
}

/** One Enroll over real gRPC (mutual TLS port, from 127.0.0.1), with the trailers of a refusal. */
function enroll(controller: Controller, token: string, identity: string, csrPem: string): Promise<Outcome> {
  // The server certificate names localhost too: dialing by that name needs no IP-address SNI.
  const client = new AgentServiceClient(
    controller.grpcAddress,
    grpcCredentials.createSsl(Buffer.from(controller.security.pki!.caCertificatePem)),
    { 'grpc.ssl_target_name_override': 'localhost', 'grpc.use_local_subchannel_pool': 1 },
  );
  return new Promise((resolve) => {
    client.enroll(
      { token, csrPem, router: { identity, name: '' } },
      new Metadata(),
      { deadline: Date.now() + 10_000 },
      (err: ServiceError | null, response?: EnrollResponse) => {
        client.close();
        const hint = err?.metadata?.get(RETRY_AFTER_METADATA)[0];
        resolve(
          err
            ? { code: err.code, details: err.details, retryAfterMs: hint === undefined ? undefined : String(hint) }
            : { code: GrpcStatus.OK, details: '', response },
        );
      },
    );
  });
}

/** One Enroll straight into the authority, as from `peer`: the addresses a test cannot dial from. */
async function enrollFrom(controller: Controller, peer: string, token: string, identity: string, csrPem: string) {
  try {
    const response = await controller.security.authority.enroll(
      { token, csrPem, router: { identity, name: '' } },
      peer,
    );
    return { code: GrpcStatus.OK, details: '', response } as Outcome;
  } catch (err) {
    if (!(err instanceof EnrollRefused)) throw err;
    return { code: err.code, details: err.message, retryAfterMs: err.retryAfterMs?.toString() } as Outcome;
  }
}

const codes = (outcomes: Outcome[]) => outcomes.map((o) => String(GrpcStatus[o.code]));
const times = (n: number, code: string) => Array<string>(n).fill(code);

describe('failed enrollments are limited per token and per identity, with a ceiling per address', () => {
  let db: TestDatabase;
  let controller: Controller;
  let logs: string[];
  let csrPem: string;

  beforeAll(async () => {
    db = await createPgliteDatabase();
    // The defaults, as operators get them: 20 failures a minute per token and per identity
    // (WRTFLEET_AUTH_FAILURES_PER_MINUTE), 200 per address (WRTFLEET_ENROLL_FAILURES_PER_ADDRESS).
    ({ controller, logs } = await startTestController(db, { security: { insecureAgents: false } }));
    ({ csrPem } = await newKeyAndCsr('lab:any'));
  });
  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('a router failing 50 times behind an address does not lock out the one beside it, which enrolls at once', async () => {
    // A misconfigured router retrying its one mistyped token: slowed after 20, told when to retry.
    const broken: Outcome[] = [];
    for (let i = 0; i < 30; i++) broken.push(await enroll(controller, 'wfe_mistyped-token', 'lab:broken', csrPem));
    expect(codes(broken)).toEqual([...times(20, 'UNAUTHENTICATED'), ...times(10, 'RESOURCE_EXHAUSTED')]);
    expect(broken.at(-1)!.details).toMatch(/^too many failed enrollments with this enrollment token; retry in \d+ s$/);
    const hint = Number(broken.at(-1)!.retryAfterMs);
    expect(hint).toBeGreaterThan(0);
    expect(hint).toBeLessThanOrEqual(60_000);
    // And 30 more failures from the same address, other tokens and identities: 50 in all.
    for (let i = 0; i < 30; i++)
      expect((await enroll(controller, `wfe_wrong-${i}`, `lab:other-${i}`, csrPem)).code).toBe(
        GrpcStatus.UNAUTHENTICATED,
      );

    const valid = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    const neighbour = await enroll(controller, valid.secret, 'lab:neighbour', csrPem);
    expect(neighbour.code, neighbour.details).toBe(GrpcStatus.OK);
    expect(neighbour.response!.routerId).toBeTruthy();
    expect((await controller.security.enrollmentTokens.get(valid.record.id))!.usedAt).not.toBeNull();
    // The refusals were logged, never with a token in them.
    const text = logs.join('\n');
    expect(text).toContain('failed enrollments reached a limit');
    expect(text).not.toContain('wfe_mistyped');
    expect(text).not.toContain(valid.secret);
  });

  it('one identity claimed with many tokens is slowed by itself; other identities are not', async () => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 25; i++) outcomes.push(await enroll(controller, `wfe_spray-${i}`, 'lab:wanted', csrPem));
    expect(codes(outcomes)).toEqual([...times(20, 'UNAUTHENTICATED'), ...times(5, 'RESOURCE_EXHAUSTED')]);
    expect(outcomes.at(-1)!.details).toMatch(/^too many failed enrollments for this router identity; retry in/);
    const valid = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    expect((await enroll(controller, valid.secret, 'lab:unrelated', csrPem)).code).toBe(GrpcStatus.OK);
  });

  it('a guesser spraying tokens and identities from one address is stopped at the ceiling, valid token or not', async () => {
    const guesser = '198.51.100.7:40000';
    const guesses: Outcome[] = [];
    for (let i = 0; i < 210; i++) guesses.push(await enrollFrom(controller, guesser, `wfe_g${i}`, `lab:g${i}`, csrPem));
    expect(codes(guesses)).toEqual([...times(200, 'UNAUTHENTICATED'), ...times(10, 'RESOURCE_EXHAUSTED')]);
    expect(guesses.at(-1)!.details).toMatch(/^too many failed enrollments from this address; retry in \d+ s$/);
    expect(Number(guesses.at(-1)!.retryAfterMs)).toBeGreaterThan(0);
    // Past the ceiling everyone at that address waits, unspent; another address does not.
    const valid = await controller.security.enrollmentTokens.create({ createdBy: 'test' });
    expect((await enrollFrom(controller, guesser, valid.secret, 'lab:late', csrPem)).code).toBe(
      GrpcStatus.RESOURCE_EXHAUSTED,
    );
    expect((await controller.security.enrollmentTokens.get(valid.record.id))!.usedAt).toBeNull();
    expect((await enrollFrom(controller, '203.0.113.9:5000', valid.secret, 'lab:late', csrPem)).code).toBe(
      GrpcStatus.OK,
    );
  });

  it('guesses sent at once are counted before the token is looked up: no more than the ceiling are checked', async () => {
    const guesser = '192.0.2.50:1234';
    const outcomes = await Promise.all(
      Array.from({ length: 300 }, (_, i) => enrollFrom(controller, guesser, `wfe_burst-${i}`, `lab:b${i}`, csrPem)),
    );
    const tally = codes(outcomes).reduce<Record<string, number>>((t, c) => ({ ...t, [c]: (t[c] ?? 0) + 1 }), {});
    expect(tally).toEqual({ UNAUTHENTICATED: 200, RESOURCE_EXHAUSTED: 100 });
  });

  it('counts per address, not per connection: the port is dropped from the gRPC peer', () => {
    expect(peerAddress('127.0.0.1:53412')).toBe('127.0.0.1');
    expect(peerAddress('::1:53412')).toBe('::1');
    expect(peerAddress('[::1]:53412')).toBe('::1');
    expect(peerAddress('unix:/run/wrtfleet.sock')).toBe('unix:/run/wrtfleet.sock');
  });
});
