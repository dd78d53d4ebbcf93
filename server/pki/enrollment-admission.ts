import { status as GrpcStatus } from '@grpc/grpc-js';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { EnrollRequest } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { ROUTER_IDENTITY_PATTERN } from '../agent-gateway/hello-validation.js';
import type { EnrollmentTokenRow } from '../auth/enrollment-tokens.js';
import { EnrollRefused } from './enroll-refused.js';

const MAX_NAME = 128;

/**
 * The identity and name an Enroll call asks for, or INVALID_ARGUMENT naming the field. Checked
 * before anything is counted or looked up: a malformed call is no failed enrollment.
 */
export function checkEnrollRequest(request: EnrollRequest): { identity: string; requestedName: string } {
  const identity = request.router?.identity ?? '';
  const requestedName = request.router?.name ?? '';
  if (!ROUTER_IDENTITY_PATTERN.test(identity)) {
    throw new EnrollRefused(
      GrpcStatus.INVALID_ARGUMENT,
      'router.identity must be 1-128 characters of [A-Za-z0-9._:,@/+-], starting with a letter or digit',
    );
  }
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: a name with one is refused
  if (requestedName.length > MAX_NAME || /[\u0000-\u001f\u007f]/.test(requestedName)) {
    throw new EnrollRefused(
      GrpcStatus.INVALID_ARGUMENT,
      `router.name must be at most ${MAX_NAME} printable characters`,
    );
  }
  if (!request.csrPem) throw new EnrollRefused(GrpcStatus.INVALID_ARGUMENT, 'csrPem is required');
  return { identity, requestedName };
}

/** What an accepted enrollment token may do for the identity it was presented with. */
export type EnrollmentAdmission =
  | { kind: 'create'; name: string; nameTaken: boolean; tags: string[] }
  | { kind: 'rekey'; routerId: string; decommissioned: boolean }
  | { kind: 'first-key'; routerId: string }
  | { kind: 'refuse'; message: string };

/**
 * Decides which router an Enroll call may obtain a certificate for. Re-keying an existing
 * router hands the caller its router id, its stream and its desired state, and revokes the
 * real router's certificate, so an ordinary token (scope `enroll` mints those) only ever
 * creates routers, or gives the first key to one registered ahead of it that never held a
 * certificate (its tags stay as they are); only a token an admin minted for exactly that
 * router (`POST /v1/routers/{id}/re-enroll`) re-keys one, decommissioned or not. A router
 * whose certificates expired or were revoked counts as keyed: it needs the admin too.
 */
export async function admitEnrollment(
  db: PrismaClient,
  token: EnrollmentTokenRow,
  identity: string,
  requestedName: string,
): Promise<EnrollmentAdmission> {
  const existing = await db.router.findUnique({
    where: { identity },
    select: { id: true, name: true, decommissionedAt: true },
  });
  if (token.routerId) {
    if (existing?.id !== token.routerId)
      return { kind: 'refuse', message: 'this enrollment token re-enrolls another router only' };
    return { kind: 'rekey', routerId: existing.id, decommissioned: existing.decommissionedAt !== null };
  }
  if (existing?.decommissionedAt)
    return { kind: 'refuse', message: `router ${identity} was decommissioned and may not enroll again` };
  if (existing) {
    if (await db.agentCertificate.findFirst({ where: { routerId: existing.id }, select: { serial: true } }))
      return {
        kind: 'refuse',
        message: `router ${identity} is already enrolled; an admin re-enrolls it with POST /v1/routers/{id}/re-enroll`,
      };
    if (token.routerName && token.routerName !== existing.name)
      return {
        kind: 'refuse',
        message: `this enrollment token is bound to router "${token.routerName}", but ${identity} is registered under another name`,
      };
    return { kind: 'first-key', routerId: existing.id };
  }
  const name = token.routerName ?? (requestedName || identity);
  const holder = await db.router.findUnique({ where: { name }, select: { id: true } });
  if (token.routerName && holder)
    return {
      kind: 'refuse',
      message: `this enrollment token is bound to router "${token.routerName}", which is enrolled with another identity`,
    };
  return { kind: 'create', name, nameTaken: holder !== null, tags: token.tags };
}

/**
 * The address part of a grpc-js peer ("127.0.0.1:53412", "::1:53412", "[::1]:53412"): the
 * failed-enrollment limit counts per address, not per connection.
 */
export function peerAddress(peer: string): string {
  const bracketed = /^\[(.+)\]:\d+$/.exec(peer);
  if (bracketed) return bracketed[1]!;
  const withPort = /^(.+):\d+$/.exec(peer);
  return withPort ? withPort[1]! : peer;
}
