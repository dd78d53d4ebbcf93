import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { HelloAdmission, RETRY_AFTER_METADATA } from '../../../server/agent-gateway/hello-admission.js';
import { retryAfterHint } from '../../../agent/controller-link.js';

describe('Hello admission control', () => {
  it('admits up to its limit, refuses the next with a time to come back, and admits again once one is done', () => {
    const admission = new HelloAdmission(
      2,
      () => 0.5,
      () => 10_000,
    );
    const a = admission.tryEnter();
    const b = admission.tryEnter();
    const c = admission.tryEnter();
    expect([a.admitted, b.admitted, c.admitted]).toEqual([true, true, false]);
    expect(admission.inProgress).toBe(2);
    if (!c.admitted) expect(c.retryAfterMs).toBeGreaterThanOrEqual(1_000);
    if (a.admitted) {
      a.done();
      a.done(); // twice is once
    }
    expect(admission.inProgress).toBe(1);
    expect(admission.tryEnter().admitted).toBe(true);
  });

  it('spreads the refused over the schedule the recent admission rate allows, not all at once', () => {
    let now = 0;
    const admission = new HelloAdmission(
      100,
      () => 0.5,
      () => now,
    );
    // 500 admissions finished over the last 5 s: 100 per second.
    for (let i = 0; i < 500; i++) {
      const t = admission.tryEnter();
      now += 10;
      if (t.admitted) t.done();
    }
    expect(admission.ratePerSecond()).toBeCloseTo(100, 0);
    const held = Array.from({ length: 100 }, () => admission.tryEnter());
    expect(held.every((t) => t.admitted)).toBe(true);
    const waits = Array.from({ length: 3_000 }, () => {
      const t = admission.tryEnter();
      return t.admitted ? -1 : t.retryAfterMs;
    });
    expect(waits.every((w) => w >= 1_000 && w <= 60_000)).toBe(true);
    // Slots at 100/s after the 1 s backlog: the 3,000 refused are told 1 s ... 31 s, in order.
    expect(waits[0]).toBeGreaterThanOrEqual(1_000);
    expect(waits[0]).toBeLessThan(1_200);
    expect(waits[999]).toBeGreaterThan(10_000);
    expect(waits[2_999]).toBeGreaterThan(29_000);
    expect(waits[2_999]).toBeLessThanOrEqual(31_100);
  });

  it("the agent reads the controller's hint only from a RESOURCE_EXHAUSTED status, bounded", () => {
    const withHint = (code: GrpcStatus, value: string) => {
      const metadata = new Metadata();
      metadata.set(RETRY_AFTER_METADATA, value);
      return { code, metadata };
    };
    expect(retryAfterHint(withHint(GrpcStatus.RESOURCE_EXHAUSTED, '4200'))).toBe(4_200);
    expect(retryAfterHint(withHint(GrpcStatus.UNAVAILABLE, '4200'))).toBeUndefined();
    expect(retryAfterHint(withHint(GrpcStatus.RESOURCE_EXHAUSTED, 'soon'))).toBeUndefined();
    expect(retryAfterHint(withHint(GrpcStatus.RESOURCE_EXHAUSTED, '99999999'))).toBe(300_000);
    expect(retryAfterHint({ code: GrpcStatus.RESOURCE_EXHAUSTED, metadata: new Metadata() })).toBeUndefined();
    expect(retryAfterHint(undefined)).toBeUndefined();
  });
});
