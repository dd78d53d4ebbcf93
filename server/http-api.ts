import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type Options as AjvOptions } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { PrismaClient } from '../prisma/generated/client/client.js';
import type { AgentGateway } from './agent-gateway/agent-gateway.js';
import type { AuditLog } from './audit/audit-log.js';
import authPlugin, { type AuthPluginOptions } from './auth/auth-plugin.js';
import type { SecurityServices, SignInOptions } from './auth/security.js';
import type { ApiTokens } from './auth/api-tokens.js';
import type { PlanPreview } from './fleet/plan-preview.js';
import type { RouterDirectory } from './fleet/router-directory.js';
import type { TaskQueue } from './cluster/task-queue.js';
import type { ProfileStore } from './profiles/profile-store.js';
import type { RolloutEngine } from './rollouts/rollout-engine.js';
import type { CommandService } from './commands/command-service.js';
import { commandsPlugin } from './routes/v1/commands/index.js';
import { auditPlugin } from './routes/v1/audit/index.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './config.js';
import { isRealInstant } from './http/date-time-format.js';
import errorsPlugin from './http/errors.js';
import { clientErrorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH } from './http/framework-errors.js';
import { requestLogSerializer } from './http/request-log.js';
import requestGuardsPlugin from './http/request-guards.js';
import streamSlotsPlugin from './http/stream-slots.js';
import { healthPlugin } from './routes/health.js';
import { metricsPlugin, type ControllerMetrics } from './routes/metrics/index.js';
import { profilesPlugin } from './routes/v1/profiles/index.js';
import { rolloutsPlugin } from './routes/v1/rollouts/index.js';
import { firmwarePlugin } from './routes/v1/firmware/index.js';
import { alertsPlugin } from './routes/v1/alerts/index.js';
import { alertRulesPlugin } from './routes/v1/alert-rules/index.js';
import { silencesPlugin } from './routes/v1/silences/index.js';
import type { Alerting } from './alerts/alerting.js';
import { channelsPlugin } from './routes/v1/channels/index.js';
import type { FirmwareImageStore } from './firmware/image-store.js';
import { routerRoutes } from './routes/v1/routers/index.js';
import { planPreviewPlugin } from './routes/v1/plan-preview/index.js';
import { intentPlugin } from './routes/v1/intent/index.js';
import { tokensPlugin } from './routes/v1/tokens/index.js';
import { enrollmentPlugin } from './routes/v1/enrollment-tokens/index.js';
import { certificatesPlugin } from './routes/v1/certificates/index.js';
import { sessionPasswordPlugin } from './routes/v1/session/password.js';
import type { OnboardingService } from './onboarding/onboarding-service.js';
import { jobsPlugin } from './routes/v1/jobs/index.js';
import { onboardingPlugin } from './routes/v1/onboarding/index.js';
import { sessionPlugin } from './routes/v1/session/index.js';
import { accountsPlugin } from './routes/v1/accounts/index.js';
import { DEFAULT_SIGN_IN_LIMITS, PasswordGuard } from './auth/password-guard.js';
import { RepeatedEventAudit } from './audit/repeated-events.js';
import type { OperatorAccounts } from './auth/operator-accounts.js';
import type { OperatorSessions } from './auth/operator-sessions.js';
import { consolePages, consolePlugin, type ConsolePluginOptions } from './console/console-plugin.js';
import { telemetryPlugin } from './routes/v1/telemetry/index.js';
import type { TelemetryHistory } from './telemetry/telemetry-history.js';

export interface HttpApiDeps {
  db: PrismaClient;
  directory: RouterDirectory;
  tokens: ApiTokens;
  /** Operator accounts and their console sessions (the cookie the console signs in with). */
  accounts: OperatorAccounts;
  sessions: OperatorSessions;
  signIn?: SignInOptions;
  profiles: ProfileStore;
  previews: PlanPreview;
  rollouts: RolloutEngine;
  images: FirmwareImageStore;
  commands: CommandService;
  audit: AuditLog;
  tasks: TaskQueue;
  gateway: AgentGateway;
  metrics: ControllerMetrics;
  /** Telemetry history (series of routers and of the fleet). */
  telemetry: TelemetryHistory;
  /** Alert rules, alerts, silences and their evaluator. */
  alerting: Alerting;
  /** Onboarding over SSH and its jobs. */
  onboarding?: OnboardingService;
  logger: Logger;
  /** Largest accepted request body; larger ones get 413. */
  bodyLimitBytes?: number;
  /** Failed-authentication rate limit. */
  auth?: Omit<AuthPluginOptions, 'tokens' | 'sessions'>;
  /** Token, enrollment, certificate and credential routes. */
  security?: SecurityServices;
  /** Request, idle and stream time limits; absent fields take DEFAULT_HTTP_LIMITS. */
  limits?: Partial<HttpLimits>;
  /** The operator's console (web-admin/dist) at /; absent: the controller serves the API only. */
  console?: ConsolePluginOptions;
  /** The fleet's name, shown in the console's header (default "wrtfleet"). */
  fleetName?: string;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function compilerFor(options: AjvOptions): Ajv {
  // Unknown fields are rejected, not silently dropped: a typo in an automation script must
  // fail loudly. `strict: false` lets the OpenAPI-only keywords (description, example) pass.
  const ajv = addFormats(
    new Ajv({ removeAdditional: false, useDefaults: true, allErrors: false, strict: false, ...options }),
  );
  return ajv.addFormat('date-time', { type: 'string', validate: isRealInstant });
}

/**
 * The REST API: one Fastify instance, one plugin per route group, the OpenAPI document
 * built from the same schemas that validate requests (served at /docs/json, UI at /docs).
 */
export async function createHttpApi(deps: HttpApiDeps): Promise<FastifyInstance> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...deps.limits };
  const app = Fastify({
    loggerInstance: deps.logger.child({}, { serializers: { req: requestLogSerializer } }) as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes ?? 256 * 1024,
    genReqId: () => crypto.randomUUID(),
    requestTimeout: limits.requestTimeoutSeconds * 1000,
    connectionTimeout: limits.idleTimeoutSeconds * 1000,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Query strings and path parameters are text and are coerced ("?limit=5"); JSON bodies are
  // typed already, so "64" for a TTL is an error there, never silently a number.
  const coercing = compilerFor({ coerceTypes: 'array' });
  const strict = compilerFor({ coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));

  await app.register(errorsPlugin, { notFoundFallback: deps.console ? consolePages(deps.console) : undefined });
  await app.register(requestGuardsPlugin);
  await app.register(streamSlotsPlugin, { perCaller: limits.maxStreamsPerCaller });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'wrtfleet controller API',
        version: '1',
        description: 'Profiles, plans, rollouts and the audited history of a fleet of OpenWrt routers.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token (wft_...)' },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'wrtfleet_session',
            description:
              'The console session from POST /v1/session; every write with it also needs the header X-CSRF-Token (the csrfToken of GET /v1/session), else 403 csrf_token_invalid',
          },
        },
      },
      security: [{ bearerAuth: [] }, { sessionCookie: [] }],
      tags: [
        { name: 'routers', description: 'The fleet: facts, capabilities, connection status, tags, assignments, plans' },
        { name: 'profiles', description: 'Profiles and their immutable revisions' },
        { name: 'rollouts', description: 'Pushing a revision to many routers, batch by batch' },
        {
          name: 'intent',
          description: 'The fleet as code: plan and apply directories of documents, export today’s intent',
        },
        {
          name: 'commands',
          description: 'Acting on routers now: re-probe, re-apply, rollback, detach, check drift, reboot, diagnostics',
        },
        { name: 'audit', description: 'The hash-chained history of every change' },
        { name: 'session', description: 'Signing in to the console, who am I' },
        { name: 'telemetry', description: 'What the datapaths did over time: rates per program, offloaded flows' },
        { name: 'health' },
      ],
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  await app.register(authPlugin, { ...deps.auth, tokens: deps.tokens, sessions: deps.sessions });

  // One plugin per URL prefix (server/routes/ mirrors the paths).
  const { db, audit, security } = deps;
  const { streamMaxSeconds } = limits;
  await app.register(healthPlugin, { db, tasks: deps.tasks });
  await app.register(metricsPlugin, { metrics: deps.metrics });
  await app.register(routerRoutes, {
    db,
    directory: deps.directory,
    previews: deps.previews,
    audit,
    commands: deps.commands,
    telemetry: deps.telemetry,
    streamMaxSeconds,
    security,
  });
  await app.register(profilesPlugin, { profiles: deps.profiles });
  await app.register(planPreviewPlugin, { previews: deps.previews, db });
  await app.register(intentPlugin, { db, audit, rollouts: deps.rollouts });
  await app.register(rolloutsPlugin, { rollouts: deps.rollouts, db, streamMaxSeconds });
  await app.register(firmwarePlugin, { images: deps.images, db });
  await app.register(commandsPlugin, { commands: deps.commands, db, streamMaxSeconds });
  await app.register(auditPlugin, { db, streamMaxSeconds });
  await app.register(telemetryPlugin, { telemetry: deps.telemetry });
  const { alerts, rules, silences, evaluator, channels, notifications } = deps.alerting;
  await app.register(alertsPlugin, { alerts, evaluator });
  await app.register(alertRulesPlugin, { rules, evaluator });
  await app.register(silencesPlugin, { silences, evaluator });
  await app.register(channelsPlugin, { channels, notifications, db });
  if (security) {
    await app.register(tokensPlugin, { tokens: security.tokens });
    await app.register(enrollmentPlugin, {
      enrollmentTokens: security.enrollmentTokens,
      authority: security.authority,
      audit,
      grpcAddress: security.grpcAddress,
    });
    await app.register(certificatesPlugin, { authority: security.authority });
  }
  // The password checks' only writer is this API: it closes before the database, so its close
  // is when the counts of open windows are written.
  const failedAttempts = deps.signIn?.failedAttempts ?? new RepeatedEventAudit(audit, deps.logger);
  app.addHook('onClose', () => failedAttempts.close());
  const guard = new PasswordGuard(deps.signIn?.limits ?? DEFAULT_SIGN_IN_LIMITS, failedAttempts);
  await app.register(sessionPlugin, {
    fleetName: deps.fleetName ?? 'wrtfleet',
    accounts: deps.accounts,
    sessions: deps.sessions,
    audit,
    cookieSecure: deps.signIn?.cookieSecure,
    guard,
  });
  await app.register(sessionPasswordPlugin, { accounts: deps.accounts, guard });
  await app.register(accountsPlugin, { accounts: deps.accounts });
  if (deps.console) await app.register(consolePlugin, deps.console);
  if (deps.onboarding) {
    await app.register(onboardingPlugin, { onboarding: deps.onboarding });
    await app.register(jobsPlugin, { db, onboarding: deps.onboarding, streamMaxSeconds });
  }
  if (deps.tasks.kind === 'bullmq') {
    // Bull Board exists only for the Redis queue; loaded then, not on the embedded default.
    const [{ queueBoardPlugin }, { BullMqTaskQueue }] = await Promise.all([
      import('./routes/queues.js'),
      import('./cluster/bullmq-task-queue.js'),
    ]);
    if (deps.tasks instanceof BullMqTaskQueue) await app.register(queueBoardPlugin, { queue: deps.tasks.queue });
  }
  return app as unknown as FastifyInstance;
}
