import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type Options as AjvOptions } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AgentGateway } from '../agent-gateway/agent-gateway.js';
import type { AuditLog } from '../audit/audit-log.js';
import authPlugin, { type AuthPluginOptions } from '../auth/auth-plugin.js';
import { securityRoutesPlugin, type SecurityRoutesOptions } from './security.js';
import type { ApiTokens } from '../auth/api-tokens.js';
import type { PlanPreview } from '../fleet/plan-preview.js';
import type { RouterDirectory } from '../fleet/router-directory.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { ProfileStore } from '../profiles/profile-store.js';
import type { RolloutEngine } from '../rollouts/rollout-engine.js';
import type { CommandJobs } from '../commands/command-jobs.js';
import { commandsPlugin } from './commands.js';
import { auditPlugin } from './audit.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../config.js';
import { isRealInstant } from './date-time-format.js';
import errorsPlugin from './errors.js';
import { clientErrorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH } from './framework-errors.js';
import { requestLogSerializer } from './request-log.js';
import requestGuardsPlugin from './request-guards.js';
import streamSlotsPlugin from './stream-slots.js';
import { healthPlugin } from './health.js';
import { metricsPlugin, type ControllerMetrics } from './metrics.js';
import { profilesPlugin } from './profiles.js';
import { rolloutsPlugin } from './rollouts.js';
import { routersPlugin } from './routers.js';
import { routerHistoryPlugin } from './router-history.js';
import { fleetTablePlugin } from './fleet-table.js';
import type { OnboardingService } from '../onboarding/onboarding-service.js';
import { jobsPlugin } from './jobs.js';
import { onboardingPlugin } from './onboarding.js';
import { sessionPlugin } from './session.js';
import { accountsPlugin } from './accounts.js';
import { DEFAULT_SIGN_IN_LIMITS, PasswordGuard, type SignInLimits } from './password-guard.js';
import { RepeatedEventAudit } from '../audit/repeated-events.js';
import type { OperatorAccounts } from '../auth/operator-accounts.js';
import type { OperatorSessions } from '../auth/operator-sessions.js';
import { consolePages, consolePlugin, type ConsolePluginOptions } from '../console/console-plugin.js';
import { telemetryPlugin } from './telemetry.js';
import type { TelemetryHistory } from '../telemetry/telemetry-history.js';

/** How the console's sign-in behaves: the cookie's Secure flag, the failed sign-in limits. */
export interface SignInOptions {
  /** Secure even on plain HTTP (behind a TLS proxy); over TLS it is always Secure. */
  cookieSecure?: boolean;
  limits?: SignInLimits;
  /**
   * Where failed and refused password checks are audited, aggregated (server/auth/security.ts
   * makes it); without, the API makes its own. Either way the API's close writes its counts.
   */
  failedAttempts?: RepeatedEventAudit;
}

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
  commands: CommandJobs;
  audit: AuditLog;
  jobs: JobRunner;
  gateway: AgentGateway;
  metrics: ControllerMetrics;
  /** Telemetry history (series of routers and of the fleet). */
  telemetry: TelemetryHistory;
  /** Onboarding over SSH and its jobs. */
  onboarding?: OnboardingService;
  logger: Logger;
  /** Largest accepted request body; larger ones get 413. */
  bodyLimitBytes?: number;
  /** Failed-authentication rate limit. */
  auth?: Omit<AuthPluginOptions, 'tokens' | 'sessions'>;
  /** Token, enrollment, certificate and credential routes. */
  security?: SecurityRoutesOptions;
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
  if (deps.security) await app.register(securityRoutesPlugin, deps.security);

  await app.register(healthPlugin, { db: deps.db, jobs: deps.jobs });
  await app.register(routersPlugin, {
    directory: deps.directory,
    previews: deps.previews,
    db: deps.db,
    audit: deps.audit,
  });
  await app.register(routerHistoryPlugin, { db: deps.db });
  await app.register(profilesPlugin, { profiles: deps.profiles });
  const { streamMaxSeconds } = limits;
  await app.register(fleetTablePlugin, { directory: deps.directory, db: deps.db, audit: deps.audit, streamMaxSeconds });
  await app.register(rolloutsPlugin, {
    rollouts: deps.rollouts,
    previews: deps.previews,
    db: deps.db,
    streamMaxSeconds,
  });
  await app.register(commandsPlugin, { commands: deps.commands, db: deps.db, streamMaxSeconds });
  await app.register(auditPlugin, { db: deps.db, streamMaxSeconds });
  await app.register(telemetryPlugin, { db: deps.db, telemetry: deps.telemetry });
  await app.register(metricsPlugin, { metrics: deps.metrics });
  // The password checks' only writer is this API: it closes before the database, so its close
  // is when the counts of open windows are written.
  const failedAttempts = deps.signIn?.failedAttempts ?? new RepeatedEventAudit(deps.audit, deps.logger);
  app.addHook('onClose', () => failedAttempts.close());
  const guard = new PasswordGuard(deps.signIn?.limits ?? DEFAULT_SIGN_IN_LIMITS, failedAttempts);
  await app.register(sessionPlugin, {
    fleetName: deps.fleetName ?? 'wrtfleet',
    accounts: deps.accounts,
    sessions: deps.sessions,
    audit: deps.audit,
    cookieSecure: deps.signIn?.cookieSecure,
    guard,
  });
  await app.register(accountsPlugin, { accounts: deps.accounts, guard });
  if (deps.console) await app.register(consolePlugin, deps.console);
  if (deps.onboarding) {
    await app.register(onboardingPlugin, { onboarding: deps.onboarding });
    await app.register(jobsPlugin, { db: deps.db, onboarding: deps.onboarding, streamMaxSeconds });
  }
  if (deps.jobs.kind === 'bullmq') {
    // Bull Board exists only for the Redis queue; loaded then, not on the embedded default.
    const [{ queueBoardPlugin }, { BullMqJobRunner }] = await Promise.all([
      import('./queue-board.js'),
      import('../jobs/bullmq-runner.js'),
    ]);
    if (deps.jobs instanceof BullMqJobRunner) await app.register(queueBoardPlugin, { queue: deps.jobs.queue });
  }
  return app as unknown as FastifyInstance;
}
