import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { hashToken } from '../auth/api-tokens.js';
import { FailureLimiter, reserveAll } from '../auth/failure-limiter.js';
import { EnrollRefused } from './enroll-refused.js';

/** Failed enrollments (a refused token or identity) allowed per minute, by what they name. */
export interface EnrollmentLimitSettings {
  /** Failures presenting one token secret (a wrong one, or one used up). */
  perToken: number;
  /** Failures claiming one router identity, from any address. */
  perIdentity: number;
  /** Failures from one peer address: a ceiling far above the others, since routers behind one NAT share it. */
  perAddress: number;
}

export const DEFAULT_ENROLLMENT_LIMITS: EnrollmentLimitSettings = { perToken: 20, perIdentity: 20, perAddress: 200 };

/** One Enroll call's slots: release them unless the call failed on its token or identity. */
export interface EnrollmentSlots {
  release(): void;
  /** The call failed: the slots stay counted; the log says once when a key reaches its limit. */
  failed(): void;
}

/**
 * The limits on failed enrollments. They count what a guesser cannot share with the routers
 * beside it: the token it presents and the identity it claims. The peer address, which a
 * whole CGNAT or site may share, only has a ceiling ten times higher, so one misconfigured
 * router does not lock its neighbours out while a guesser spraying tokens and identities
 * from one address is still slowed. A call takes its slots before its token is looked up and
 * gives them back unless it fails, so calls sent at once cannot all be checked before the
 * first failure counts; past a limit a call is RESOURCE_EXHAUSTED with a retry hint, before
 * the database is touched. Per replica.
 */
export class EnrollmentLimits {
  private readonly limiters: { limiter: FailureLimiter; what: string }[];

  constructor(
    settings: EnrollmentLimitSettings,
    private readonly log: Pick<Logger, 'warn'>,
  ) {
    this.limiters = [
      { limiter: new FailureLimiter(settings.perToken), what: 'with this enrollment token' },
      { limiter: new FailureLimiter(settings.perIdentity), what: 'for this router identity' },
      { limiter: new FailureLimiter(settings.perAddress), what: 'from this address' },
    ];
  }

  /** Takes the call's slot for each of token, identity and address, or throws RESOURCE_EXHAUSTED. */
  reserve(call: { token: string; identity: string; address: string }): EnrollmentSlots {
    // A hash keys the token: the map never holds a secret, and a long one costs 64 characters.
    const keys = [hashToken(call.token), call.identity, call.address];
    const slots = reserveAll(this.limiters.map(({ limiter }, i) => [limiter, keys[i]!]));
    if (!slots.ok)
      throw new EnrollRefused(
        GrpcStatus.RESOURCE_EXHAUSTED,
        `too many failed enrollments ${this.limiters[slots.full]!.what}; retry in ${slots.retryAfterSeconds} s`,
        slots.retryAfterSeconds * 1000,
      );
    return {
      release: slots.release,
      failed: () => {
        const filled = this.limiters.filter((_, i) => slots.filled[i]).map((l) => l.what);
        if (filled.length > 0)
          this.log.warn(
            { peer: call.address, identity: call.identity, limits: filled },
            'failed enrollments reached a limit; refusing more for now',
          );
      },
    };
  }
}
