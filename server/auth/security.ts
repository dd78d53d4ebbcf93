import type { ServerCredentials } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AgentGateway } from '../agent-gateway/agent-gateway.js';
import type { SignInLimits } from './password-guard.js';
import type { AuditLog } from '../audit/audit-log.js';
import { RepeatedEventAudit } from '../audit/repeated-events.js';
import type { ControllerConfig } from '../config.js';
import { AgentAuthority } from '../pki/agent-authority.js';
import { ControllerPki } from '../pki/ca.js';
import { agentServerCredentials } from '../pki/grpc-credentials.js';
import { Reenrollment } from '../pki/re-enrollment.js';
import { loadDataKey, SecretBox } from '../secrets/secret-box.js';
import { RouterCredentials } from '../secrets/router-credentials.js';
import type { ApiTokens } from './api-tokens.js';
import { EnrollmentTokens } from './enrollment-tokens.js';
import { OperatorAccounts } from './operator-accounts.js';
import { OperatorSessions } from './operator-sessions.js';
import { resolveSecurity, type SecurityConfig } from './security-config.js';

/** The controller's security parts (tokens, CA, enrollment, secrets at rest), built once and handed to the gateway and the API. */
/** The security services the API's routes use: tokens, enrollment, certificates, router credentials. */
export interface SecurityServices {
  tokens: ApiTokens;
  enrollmentTokens: EnrollmentTokens;
  reenrollment: Reenrollment;
  authority: AgentAuthority;
  credentials: RouterCredentials;
  audit: AuditLog;
  db: PrismaClient;
  /** host:port agents dial (shown with a new enrollment token). */
  grpcAddress: () => string;
}

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

export interface ControllerSecurity {
  settings: SecurityConfig;
  /** null only with WRTFLEET_INSECURE_AGENTS=true. */
  pki: ControllerPki | null;
  authority: AgentAuthority;
  enrollmentTokens: EnrollmentTokens;
  /** Admin re-enroll tokens: the only way to re-key a router already in the fleet. */
  reenrollment: Reenrollment;
  credentials: RouterCredentials;
  /** Operator accounts and their console sessions. */
  accounts: OperatorAccounts;
  sessions: OperatorSessions;
  /** Failed and refused password checks, audited aggregated (the HTTP API writes them, and its close the last counts). */
  failedAttempts: RepeatedEventAudit;
  /** For the AgentGateway options: TLS credentials and the per-stream checks (undefined when insecure). */
  gateway: { credentials?: ServerCredentials; security?: AgentAuthority };
  /** Spread into createHttpApi's deps. */
  http: {
    auth: { authFailuresPerMinute: number };
    security: SecurityServices;
    accounts: OperatorAccounts;
    sessions: OperatorSessions;
    signIn: SignInOptions;
  };
  /**
   * Called once the gateway is listening: starts the revocation watch. `agentAddress` is read
   * each time the API names where agents go.
   */
  attach(gateway: AgentGateway, agentAddress: () => string): void;
  stop(): void;
}

export async function startSecurity(
  config: ControllerConfig,
  db: PrismaClient,
  audit: AuditLog,
  tokens: ApiTokens,
  log: Logger,
): Promise<ControllerSecurity> {
  const settings = resolveSecurity(config.security);
  let pki: ControllerPki | null = null;
  if (settings.insecureAgents) {
    log.warn(
      'WRTFLEET_INSECURE_AGENTS=true: agents connect over PLAINTEXT gRPC without certificates and any client can claim any router; never use this outside tests and labs',
    );
  } else {
    pki = await ControllerPki.open(
      {
        dataDir: config.dataDir,
        serverNames: [config.grpcHost, ...settings.grpcTlsNames],
        clientCertificateLifetimeSeconds: settings.clientCertificateLifetimeSeconds,
        caCertFile: settings.caCertFile,
        caKeyFile: settings.caKeyFile,
        serverCertFile: settings.tlsCertFile,
        serverKeyFile: settings.tlsKeyFile,
      },
      log,
    );
  }
  const box = new SecretBox(
    await loadDataKey({ dataDir: config.dataDir, dataKey: settings.dataKey }, log),
    SecretBox.fromBase64(settings.previousDataKeys),
  );
  const credentials = new RouterCredentials(db, box, log);
  await credentials.resealStale();
  const enrollmentTokens = new EnrollmentTokens(db);
  const authority = new AgentAuthority(db, pki, enrollmentTokens, audit, log, {
    perToken: settings.authFailuresPerMinute,
    perIdentity: settings.authFailuresPerMinute,
    perAddress: settings.enrollFailuresPerAddress,
  });
  const reenrollment = new Reenrollment(db, enrollmentTokens, audit);
  const sessions = new OperatorSessions(db, {
    idleSeconds: settings.sessionIdleSeconds,
    absoluteSeconds: settings.sessionAbsoluteSeconds,
  });
  const accounts = new OperatorAccounts(db, audit, sessions);
  const failedAttempts = new RepeatedEventAudit(audit, log);
  const signIn: SignInOptions = {
    cookieSecure: settings.sessionCookieSecure,
    limits: {
      perAddressPerMinute: settings.authFailuresPerMinute,
      perNamePer15Minutes: settings.signInFailuresPerName,
    },
    failedAttempts,
  };
  let grpcAddress = () => '';
  return {
    settings,
    pki,
    authority,
    enrollmentTokens,
    reenrollment,
    credentials,
    accounts,
    sessions,
    failedAttempts,
    gateway: pki ? { credentials: agentServerCredentials(pki), security: authority } : {},
    http: {
      auth: { authFailuresPerMinute: settings.authFailuresPerMinute },
      security: {
        tokens,
        enrollmentTokens,
        reenrollment,
        authority,
        credentials,
        audit,
        db,
        grpcAddress: () => grpcAddress(),
      },
      accounts,
      sessions,
      signIn,
    },
    attach(gateway, address) {
      grpcAddress = address;
      authority.watch(gateway);
    },
    stop() {
      authority.stop();
    },
  };
}
