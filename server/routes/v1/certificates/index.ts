import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AgentAuthority } from '../../../pki/agent-authority.js';
import { normalizeSerial } from '../../../pki/ca.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';

export interface CertificatesOptions {
  authority: AgentAuthority;
}

/** POST /v1/certificates/:serial/revoke (admin). */
export const certificatesPlugin: FastifyPluginAsyncTypebox<CertificatesOptions> = async (app, { authority }) => {
  app.post(
    '/v1/certificates/:serial/revoke',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['security'],
        summary: 'Revoke one client certificate; a stream it authenticated closes within a second',
        params: Type.Object(
          { serial: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9a-fA-F:]+$' }) },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null(), 404: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      const serial = normalizeSerial(request.params.serial);
      if (!(await authority.revokeCertificate(serial, request.actor.id, request.id))) {
        throw new ApiError(404, 'not_found', `no unrevoked certificate with serial ${serial}`);
      }
      return reply.status(204).send(null);
    },
  );
};
