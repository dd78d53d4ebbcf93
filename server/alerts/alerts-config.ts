/** How alerts are evaluated and their notifications delivered (server/alerts/). */
export interface AlertsConfig {
  /** Each replica looks this often whether an evaluation is due; one at a time evaluates. */
  evaluateEveryMs: number;
  /** Each replica looks this often for notifications to send. */
  deliverEveryMs: number;
  /** The first retry of a failed delivery waits this long, each next one twice as long. */
  retryBaseMs: number;
  /** Retries stop at this wait. */
  retryMaxMs: number;
  /** A notification is given up (failed) after this many attempts. */
  maxAttempts: number;
  /** One delivery attempt (an HTTP request, an SMTP session) may take this long. */
  attemptTimeoutMs: number;
}

export const DEFAULT_ALERTS: AlertsConfig = {
  evaluateEveryMs: 5_000,
  deliverEveryMs: 1_000,
  retryBaseMs: 5_000,
  retryMaxMs: 10 * 60_000,
  maxAttempts: 10,
  attemptTimeoutMs: 10_000,
};
