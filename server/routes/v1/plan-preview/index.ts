import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EffectiveProfileError } from '../../../fleet/plan-preview.js';
import { SelectorSchema, selectorWhere } from '../../../fleet/selector.js';
import { PROFILE_NAME_PATTERN } from '../../../profiles/profile-store.js';
import { planVerdicts, summarize } from '../../../rollouts/plan-verdicts.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { PlanPreviewView, RevisionNumber } from '../../../http/shared-schemas.js';
import { selectorError } from '../selector-error.js';
import type { PrismaClient } from '../../../../prisma/generated/client/client.js';
import type { PlanPreview } from '../../../fleet/plan-preview.js';

export interface PlanPreviewOptions {
  previews: PlanPreview;
  db: PrismaClient;
}

/** POST /v1/plan-preview: what a profile revision would do to the routers a selector matches, before a rollout. */
export const planPreviewPlugin: FastifyPluginAsyncTypebox<PlanPreviewOptions> = async (app, { previews, db }) => {
  app.post(
    '/v1/plan-preview',
    {
      schema: {
        tags: ['rollouts'],
        summary:
          'Dry run: the plan each selected router would get from a profile revision, and what would change on it',
        body: Type.Object(
          {
            profile: Type.String({ pattern: PROFILE_NAME_PATTERN }),
            revision: Type.Optional(RevisionNumber),
            selector: SelectorSchema,
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            matched: Type.Integer(),
            items: Type.Array(PlanPreviewView, { description: 'The first `limit` matched routers, each in detail' }),
            summary: Type.Object(
              {
                satisfiable: Type.Integer(),
                refused: Type.Integer({
                  description: 'The plan refuses these routers (what POST /v1/rollouts `skipRefused` leaves out)',
                }),
                changing: Type.Integer({ description: 'Satisfiable, and the plan differs from what the router runs' }),
                unchanged: Type.Integer({ description: 'Satisfiable, and the same plan as the router runs' }),
              },
              {
                description:
                  'Over every matched router, not only the items: satisfiable + refused = matched, changing + unchanged = satisfiable',
              },
            ),
          }),
          400: errorBodySchema,
        },
      },
    },
    async (request) => {
      const { profile, revision, selector, limit = 100 } = request.body;
      let where;
      try {
        where = selectorWhere(selector);
      } catch (err) {
        throw selectorError(err) ?? err;
      }
      const matched = await db.router.count({ where });
      const routers = await db.router.findMany({
        where,
        select: { id: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: limit,
      });
      const items = [];
      try {
        for (const r of routers) items.push((await previews.forRouter(r.id, { profile, revision }))!);
      } catch (err) {
        if (err instanceof EffectiveProfileError) throw new ApiError(400, 'invalid_request', err.message);
        throw err;
      }
      const chosen = await db.profileRevision.findFirst({
        where: { profile: { name: profile }, ...(revision !== undefined ? { number: revision } : {}) },
        orderBy: { number: 'desc' },
      });
      if (!chosen)
        throw new ApiError(400, 'invalid_request', `profile ${profile} has no revision ${revision ?? ''}`.trim());
      // The same verdicts a rollout with skipRefused acts on, for every matched router.
      const summary = matched > 0 ? summarize(await planVerdicts(db, chosen, where, profile)) : summarize([]);
      return { matched, items, summary };
    },
  );
};
