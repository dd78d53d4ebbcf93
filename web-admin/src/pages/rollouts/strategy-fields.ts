/**
 * The wizard's strategy and start time as typed, checked with the controller's bounds
 * (server/rollouts/rollout-strategy.ts) so each field says what is wrong before sending.
 */

export interface StrategyFields {
  canary: string;
  batchSize: string;
  /** Percent, 0-100: "pause when more than this share of finished routers failed". */
  failurePercent: string;
  /** Seconds to wait after each batch before its health gates; 0 for none. */
  soakSeconds: string;
  /** `manual`: wait for a promote after the first batch. */
  promote: 'auto' | 'manual';
  /** A datetime-local value ("2026-12-02T04:00"), empty for now. */
  startAt: string;
}

export const DEFAULT_STRATEGY_FIELDS: StrategyFields = {
  canary: '1',
  batchSize: '50',
  failurePercent: '0',
  soakSeconds: '0',
  promote: 'auto',
  startAt: '',
};

export interface StrategyInput {
  canary: number;
  batchSize: number;
  maxFailureRatio: number;
  soakSeconds: number;
  promote: 'auto' | 'manual';
}

export type StrategyCheck =
  | { ok: true; strategy: StrategyInput; startAt: string | undefined }
  | { ok: false; errors: Partial<Record<keyof StrategyFields, string>> };

function integer(text: string, min: number, max: number): number | string {
  if (!/^\d+$/.test(text.trim())) return 'a whole number';
  const n = Number(text);
  if (n < min || n > max) return `${min} to ${max}`;
  return n;
}

/** `now` is when the check runs: a start time in the past is refused (it would start at once, unasked). */
export function checkStrategy(fields: StrategyFields, now: Date): StrategyCheck {
  const errors: Partial<Record<keyof StrategyFields, string>> = {};
  const canary = integer(fields.canary, 0, 1000);
  if (typeof canary === 'string') errors.canary = `canary size: ${canary}`;
  const batchSize = integer(fields.batchSize, 1, 10_000);
  if (typeof batchSize === 'string') errors.batchSize = `batch size: ${batchSize}`;
  const percent = Number(fields.failurePercent);
  if (fields.failurePercent.trim() === '' || !Number.isFinite(percent) || percent < 0 || percent > 100)
    errors.failurePercent = 'failure threshold: a percentage from 0 to 100';
  const soakSeconds = integer(fields.soakSeconds, 0, 604_800);
  if (typeof soakSeconds === 'string') errors.soakSeconds = `soak time: ${soakSeconds} (seconds)`;
  let startAt: string | undefined;
  if (fields.startAt.trim() !== '') {
    const when = new Date(fields.startAt);
    if (Number.isNaN(when.getTime())) errors.startAt = 'start time: not a date and time';
    else if (when.getTime() < now.getTime() - 60_000)
      errors.startAt = 'start time: in the past (leave empty to start now)';
    else startAt = when.toISOString();
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    strategy: {
      canary: canary as number,
      batchSize: batchSize as number,
      maxFailureRatio: Math.round(percent * 100) / 10_000,
      soakSeconds: soakSeconds as number,
      promote: fields.promote,
    },
    startAt,
  };
}

/** How many batches a rollout of `total` routers makes with this strategy (the controller's batchCountFor). */
export function batchCount(total: number, strategy: Pick<StrategyInput, 'canary' | 'batchSize'>): number {
  if (total <= 0) return 0;
  const canary = Math.min(strategy.canary, total);
  return (canary > 0 ? 1 : 0) + Math.ceil((total - canary) / strategy.batchSize);
}
