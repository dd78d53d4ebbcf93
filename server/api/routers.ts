import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { InvalidCursor, type RouterDirectory } from '../fleet/router-directory.js';
import { ApiError, errorBodySchema } from './errors.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const RouterSummary = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    identity: Type.String(),
    status: Type.Union([Type.Literal('online'), Type.Literal('offline'), Type.Literal('never_seen')]),
    lastSeenAt: Nullable(Type.String({ format: 'date-time' })),
    connectedAt: Nullable(Type.String({ format: 'date-time' })),
    agentVersion: Nullable(Type.String()),
    placement: Type.String(),
    soc: Nullable(Type.String()),
    arch: Nullable(Type.String()),
    endian: Nullable(Type.String()),
    kernel: Nullable(Type.String()),
    openwrt: Type.Union([Type.Object({ version: Type.String(), target: Nullable(Type.String()) }), Type.Null()]),
    model: Nullable(Type.String()),
    tags: Type.Array(Type.String()),
    appliedRevision: Type.Union([Type.Object({ profile: Type.String(), revision: Type.Integer() }), Type.Null()]),
    decommissionedAt: Nullable(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'RouterSummary' },
);

const RouterDetail = Type.Intersect([
  Type.Omit(RouterSummary, []),
  Type.Object({
    facts: Type.Any({ description: 'Fact sheet the agent collected (SoC, CPU, kernel, OpenWrt release, devices, unknowns with reasons)' }),
    capabilities: Type.Any({ description: '{ predicted, probed }: each of hardwareOffload, softwareOffload, ebpf, tcx with a reason' }),
    liveState: Type.Any({ description: 'Datapath and offload state last reported by the agent' }),
  }),
]);

export interface RoutersPluginOptions {
  directory: RouterDirectory;
}

/** GET /v1/routers and GET /v1/routers/{id}: the fleet as operators and scripts see it. */
export const routersPlugin: FastifyPluginAsyncTypebox<RoutersPluginOptions> = async (app, { directory }) => {
  app.get(
    '/v1/routers',
    {
      schema: {
        tags: ['routers'],
        summary: 'List routers, oldest first, with keyset pagination',
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
            cursor: Type.Optional(Type.String({ maxLength: 512, description: 'nextCursor of the previous page' })),
            soc: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'SoC, e.g. MT7621 (case-insensitive)' })),
            status: Type.Optional(Type.Union([Type.Literal('online'), Type.Literal('offline'), Type.Literal('never_seen')])),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ items: Type.Array(RouterSummary), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
          400: errorBodySchema,
        },
      },
    },
    async (request) => {
      const { limit, cursor, soc, status } = request.query;
      try {
        return await directory.list({ soc, status }, { limit, cursor });
      } catch (err) {
        if (err instanceof InvalidCursor) {
          throw new ApiError(400, 'invalid_request', `invalid querystring parameter: cursor ${err.message}`, [
            { path: '/cursor', in: 'querystring', message: err.message },
          ]);
        }
        throw err;
      }
    },
  );

  app.get(
    '/v1/routers/:id',
    {
      schema: {
        tags: ['routers'],
        summary: 'One router with its facts, capabilities, connection status and applied revision',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: RouterDetail, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const router = await directory.get(request.params.id);
      if (!router) throw new ApiError(404, 'not_found', `no router with id ${request.params.id}`);
      return router;
    },
  );
};
