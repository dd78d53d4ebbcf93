import type { FastifyReply } from 'fastify';
import { GateFull } from '../../core/concurrency-gate.js';
import type { RepeatedEntry, RepeatedEventAudit } from '../audit/repeated-events.js';
import { FailureLimiter, reserveAll } from './failure-limiter.js';
import { ApiError } from '../http/api-error.js';

/** How many failed password checks are allowed before 429 (server/auth/security-config.ts holds the knobs). */
export interface SignInLimits {
  /** Failed password checks from one address per minute. */
  perAddressPerMinute: number;
  /** Failed password checks naming one account per 15 minutes, from any address. */
  perNamePer15Minutes: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { perAddressPerMinute: 20, perNamePer15Minutes: 10 };

/** The audit target of a sign-in that named no account: the name typed may be a password. */
export const UNKNOWN_ACCOUNT = '(unknown)';

/** An audit event of a password attempt, without the request id (the guard adds it). */
export type AttemptEvent = Omit<RepeatedEntry, 'requestId'>;

/** One password attempt as the guard sees it. */
export interface PasswordAttempt {
  reply: FastifyReply;
  address: string;
  /** The account name the attempt is counted against (as typed, for a sign-in). */
  name: string;
  requestId: string;
  /** "sign-ins" or "password changes", for the 429's message. */
  what: string;
  /** The event a refused (429) attempt is audited as. */
  limited: AttemptEvent;
}

/**
 * The limits on password guessing, for sign-in and for an account's own password change
 * alike (one secret, one count): per address and per account name, in fixed windows.
 * An attempt takes its slot in both windows before the slow hash and keeps it only if it
 * fails, so requests sent at once cannot all be checked before the first failure counts:
 * past a limit they are 429 with Retry-After and never hashed. Failures and refusals are
 * audited through RepeatedEventAudit, so a burst writes a few events with counts, not one each.
 */
export class PasswordGuard {
  private readonly byAddress: FailureLimiter;
  private readonly byName: FailureLimiter;

  constructor(
    limits: SignInLimits,
    private readonly events: RepeatedEventAudit,
  ) {
    this.byAddress = new FailureLimiter(limits.perAddressPerMinute);
    this.byName = new FailureLimiter(limits.perNamePer15Minutes, 15 * 60_000);
  }

  /**
   * Runs `check` as one counted attempt and returns its result; `failed` says which event a
   * result is audited as, or null when it succeeded (its slots are given back). Refused with
   * 429 past a limit, and with 503 when too many password checks wait already (not counted).
   */
  async run<T>(attempt: PasswordAttempt, check: () => Promise<T>, failed: (result: T) => AttemptEvent | null) {
    // Synchronous up to here: no other request can take the slot between the test and the count.
    const slot = reserveAll([
      [this.byAddress, attempt.address],
      [this.byName, attempt.name],
    ]);
    if (!slot.ok) {
      await this.events.note({ ...attempt.limited, requestId: attempt.requestId });
      attempt.reply.header('retry-after', String(slot.retryAfterSeconds));
      throw new ApiError(
        429,
        'too_many_failures',
        `too many failed ${attempt.what}; retry in ${slot.retryAfterSeconds} s`,
      );
    }
    let result: T;
    try {
      result = await check();
    } catch (err) {
      slot.release();
      if (!(err instanceof GateFull)) throw err;
      attempt.reply.header('retry-after', '1');
      throw new ApiError(503, 'busy', 'too many passwords are being checked right now; retry in 1 s');
    }
    const failure = failed(result);
    if (failure) await this.events.note({ ...failure, requestId: attempt.requestId });
    else slot.release();
    return result;
  }
}
