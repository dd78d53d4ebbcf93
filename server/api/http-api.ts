import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import authPlugin from '../auth/auth-plugin.js';
import type { ApiTokens } from '../auth/api-tokens.js';
import type { RouterDirectory } from '../fleet/router-directory.js';
import errorsPlugin from './errors.js';
import { routersPlugin } from './routers.js';

export interface HttpApiDeps {
  directory: RouterDirectory;
  tokens: ApiTokens;
  logger: Logger;
  /** Largest accepted request body; larger ones get 413. */
  bodyLimitBytes?: number;
}

/**
 * The REST API: one Fastify instance, one plugin per route group, the OpenAPI document
 * built from the same schemas that validate requests (served at /docs/json, UI at /docs).
 */
export async function createHttpApi(deps: HttpApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes ?? 256 * 1024,
    genReqId: () => crypto.randomUUID(),
    ajv: {
      customOptions: {
        // Reject unknown fields instead of silently dropping them: a typo in an automation
        // script must fail loudly, not be ignored.
        removeAdditional: false,
        coerceTypes: 'array',
        useDefaults: true,
        allErrors: false,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(errorsPlugin);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'wrtfleet controller API',
        version: '1',
        description: 'Profiles, plans and the audited history of a fleet of OpenWrt routers.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (wft_...)' } } },
      security: [{ bearerAuth: [] }],
      tags: [{ name: 'routers', description: 'The fleet: facts, capabilities, connection status' }, { name: 'health' }],
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  await app.register(authPlugin, { tokens: deps.tokens });

  app.get('/healthz', { config: { public: true }, schema: { tags: ['health'], summary: 'Liveness', security: [], response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } } }, async () => ({ ok: true }));
  await app.register(routersPlugin, { directory: deps.directory });
  return app as unknown as FastifyInstance;
}
