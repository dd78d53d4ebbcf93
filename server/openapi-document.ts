import { pino } from 'pino';
import type { OnboardingService } from './onboarding/onboarding-service.js';
import { createHttpApi, type HttpApiDeps } from './http-api.js';
import type { SecurityServices } from './auth/security.js';

/**
 * A dependency that only the route handlers use: building the API to read its document never
 * calls one, and a call would mean a plugin started doing work at registration.
 */
function unreachable<T>(name: string): T {
  const fail = (member: PropertyKey) => {
    throw new Error(`the OpenAPI document is built without a controller, but ${name}.${String(member)} was used`);
  };
  return new Proxy(
    {},
    {
      get: (_target, member) => (member === 'then' ? undefined : fail(member)),
    },
  ) as T;
}

/**
 * The controller's OpenAPI document, built in-process from the same route plugins and schemas
 * the controller serves at /docs/json, without a database or a listening socket. The console's
 * typed client is generated from it (web-admin/scripts/api-types.ts).
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const security: SecurityServices = {
    tokens: unreachable('tokens'),
    enrollmentTokens: unreachable('enrollmentTokens'),
    reenrollment: unreachable('reenrollment'),
    authority: unreachable('authority'),
    credentials: unreachable('credentials'),
    audit: unreachable('audit'),
    db: unreachable('db'),
    grpcAddress: () => '127.0.0.1:0',
  };
  const deps: HttpApiDeps = {
    db: unreachable('db'),
    directory: unreachable('directory'),
    tokens: unreachable('tokens'),
    accounts: unreachable('accounts'),
    sessions: unreachable('sessions'),
    profiles: unreachable('profiles'),
    previews: unreachable('previews'),
    rollouts: unreachable('rollouts'),
    images: unreachable('images'),
    audit: unreachable('audit'),
    // Its kind decides whether the Redis queue board is mounted; the board is not in the document.
    tasks: { kind: 'in-process' } as HttpApiDeps['tasks'],
    gateway: unreachable('gateway'),
    metrics: unreachable('metrics'),
    telemetry: unreachable('telemetry'),
    alerting: {
      alerts: unreachable('alerts'),
      rules: unreachable('rules'),
      silences: unreachable('silences'),
      evaluator: unreachable('evaluator'),
      channels: unreachable('channels'),
      notifications: unreachable('notifications'),
    } as unknown as HttpApiDeps['alerting'],
    commands: unreachable('commands'),
    onboarding: unreachable<OnboardingService>('onboarding'),
    logger: pino({ level: 'silent' }),
    security,
  };
  const app = await createHttpApi(deps);
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
