/**
 * Security settings, read from the environment with the rest of the controller
 * configuration (server/config.ts reads them, and holds them under `security`). Every default is the safe
 * one: agents need mutual TLS unless WRTFLEET_INSECURE_AGENTS=true is set explicitly.
 */
export interface SecurityConfig {
  /** Plaintext gRPC, no client certificates, Hello identities trusted. Tests and labs only. */
  insecureAgents: boolean;
  /** Extra DNS names / IPs agents dial the gRPC endpoint by (server certificate SANs). */
  grpcTlsNames: string[];
  /** Lifetime of router client certificates; agents renew at two thirds of it. */
  clientCertificateLifetimeSeconds: number;
  /** Operator-supplied CA (PEM files); default: generated in <dataDir>/pki at first start. */
  caCertFile?: string;
  caKeyFile?: string;
  /** Operator-supplied gRPC server certificate chain and key (PEM files). */
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Base64 of 32 bytes: the key for secrets at rest; default: <dataDir>/data-key. */
  dataKey?: string;
  /** Earlier data keys (base64, comma-separated in the env), still accepted for decryption during rotation. */
  previousDataKeys: string[];
  /**
   * Failed REST authentications one client IP may make per minute before 429 (also failed
   * sign-ins); failed enrollments per token and per router identity per minute.
   */
  authFailuresPerMinute: number;
  /** Failed enrollments from one peer address per minute: a ceiling, since routers behind one NAT share it. */
  enrollFailuresPerAddress: number;
  /** Failed console sign-ins naming one account per 15 minutes, from any address, before 429. */
  signInFailuresPerName: number;
  /** A console session ends after this long without a request (WRTFLEET_SESSION_IDLE_MINUTES). */
  sessionIdleSeconds: number;
  /** A console session ends this long after sign-in, however busy (WRTFLEET_SESSION_MAX_HOURS). */
  sessionAbsoluteSeconds: number;
  /** Mark the session cookie Secure on plain HTTP too: the controller is behind a TLS proxy. */
  sessionCookieSecure: boolean;
}

export const DEFAULT_SECURITY: SecurityConfig = {
  insecureAgents: false,
  grpcTlsNames: [],
  clientCertificateLifetimeSeconds: 24 * 3600,
  previousDataKeys: [],
  authFailuresPerMinute: 20,
  enrollFailuresPerAddress: 200,
  signInFailuresPerName: 10,
  sessionIdleSeconds: 30 * 60,
  sessionAbsoluteSeconds: 12 * 3600,
  sessionCookieSecure: false,
};

export function resolveSecurity(partial: Partial<SecurityConfig> | undefined): SecurityConfig {
  return { ...DEFAULT_SECURITY, ...partial };
}
