import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AlertEvaluator } from '../../../alerts/alert-evaluator.js';
import {
  AlertKindSchema,
  AlertRuleInputSchema,
  AlertRulePatchSchema,
  AlertSeveritySchema,
  RULE_NAME_PATTERN,
  RuleRefused,
  type AlertRules,
} from '../../../alerts/alert-rules.js';
import { ApiError, errorBodySchema } from '../../../http/api-error.js';
import { auditContext } from '../../../http/request-context.js';
import { Nullable, Timestamp } from '../../../http/shared-schemas.js';
import { selectorError } from '../selector-error.js';

export interface AlertRulesPluginOptions {
  rules: AlertRules;
  evaluator: AlertEvaluator;
}

const AlertRuleSchema = Type.Object({
  name: Type.String(),
  kind: AlertKindSchema,
  severity: AlertSeveritySchema,
  selector: Nullable(Type.Any({ description: 'Which routers (router kinds); null: every router' })),
  forSeconds: Type.Integer(),
  params: Type.Object({ days: Type.Optional(Type.Integer()), intervalSeconds: Type.Optional(Type.Integer()) }),
  groupBy: Nullable(Type.String()),
  groupWaitSeconds: Type.Integer(),
  groupIntervalSeconds: Type.Integer(),
  enabled: Type.Boolean(),
  firing: Type.Integer({ description: 'Its alerts unresolved now' }),
  updatedAt: Timestamp,
});

const NameParam = Type.Object({ name: Type.String({ pattern: RULE_NAME_PATTERN }) });

function refused(err: unknown): never {
  if (err instanceof RuleRefused) {
    const code = err.status === 404 ? 'not_found' : err.status === 409 ? 'conflict' : 'invalid_request';
    throw new ApiError(
      err.status,
      code,
      err.message,
      err.field ? [{ path: `/${err.field}`, in: 'body', message: err.message }] : undefined,
    );
  }
  throw selectorError(err) ?? err;
}

/** Alert rules: what is watched, for whom, how long, how loud. Changes need the admin scope and are audited. */
export const alertRulesPlugin: FastifyPluginAsyncTypebox<AlertRulesPluginOptions> = async (
  app,
  { rules, evaluator },
) => {
  app.get(
    '/v1/alert-rules',
    {
      schema: {
        tags: ['alerts'],
        summary: 'Alert rules (the shipped defaults and the admins\u2019 own)',
        response: { 200: Type.Object({ items: Type.Array(AlertRuleSchema) }) },
      },
    },
    async () => ({ items: await rules.list() }),
  );

  app.get(
    '/v1/alert-rules/:name',
    {
      schema: {
        tags: ['alerts'],
        summary: 'One alert rule',
        params: NameParam,
        response: { 200: AlertRuleSchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      const rule = await rules.get(request.params.name);
      if (!rule) throw new ApiError(404, 'not_found', `no alert rule is named "${request.params.name}"`);
      return rule;
    },
  );

  app.post(
    '/v1/alert-rules',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['alerts'],
        summary: 'Create an alert rule',
        body: AlertRuleInputSchema,
        response: { 201: AlertRuleSchema, 400: errorBodySchema, 409: errorBodySchema },
      },
    },
    async (request, reply) => {
      try {
        const rule = await rules.create(request.body, auditContext(request));
        evaluator.requestSoon();
        return reply.code(201).send(rule);
      } catch (err) {
        refused(err);
      }
    },
  );

  app.patch(
    '/v1/alert-rules/:name',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['alerts'],
        summary: 'Change an alert rule (the fields given)',
        params: NameParam,
        body: AlertRulePatchSchema,
        response: { 200: AlertRuleSchema, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (request) => {
      try {
        const rule = await rules.update(request.params.name, request.body, auditContext(request));
        evaluator.requestSoon();
        return rule;
      } catch (err) {
        refused(err);
      }
    },
  );

  app.delete(
    '/v1/alert-rules/:name',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['alerts'],
        summary: 'Remove an alert rule and its alerts',
        params: NameParam,
        response: { 204: Type.Null(), 404: errorBodySchema },
      },
    },
    async (request, reply) => {
      if (!(await rules.remove(request.params.name, auditContext(request))))
        throw new ApiError(404, 'not_found', `no alert rule is named "${request.params.name}"`);
      return reply.code(204).send(null);
    },
  );
};
