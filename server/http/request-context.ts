import type { FastifyRequest } from 'fastify';

/** Who acts and under which request id: what every audited change records. */
export function auditContext(request: FastifyRequest) {
  return { actor: request.actor.id, requestId: request.id };
}
