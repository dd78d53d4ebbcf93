/**
 * The statistics the benchmarks report. Where the machine's load drifts between rounds, rounds
 * are run in a random order and compared pairwise (same round), so differences and ratios here
 * are paired.
 */

/** The middle value of xs; of an even count, the upper of the two middle values. */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

/** The value at index floor(p / 100 * n) of an ascending sample (the last at most): at p = 50, the median above. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The nearest-rank percentile of an ascending sample: the smallest value with p % of the sample at or below it. */
export function nearestRankPercentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Mean of paired differences a[i] - b[i] (same round) with its 95 % confidence half-width. */
export function pairedDifference(a: number[], b: number[]): { mean: number; ci95: number } {
  const d = a.map((x, i) => x - b[i]!);
  const m = mean(d);
  const sd = Math.sqrt(d.reduce((acc, x) => acc + (x - m) ** 2, 0) / Math.max(1, d.length - 1));
  return { mean: m, ci95: (1.96 * sd) / Math.sqrt(d.length) };
}

export interface RatioCi {
  mean: number;
  lo: number;
  hi: number;
}

/** Geometric mean of paired ratios a[i] / b[i], with a 95 % CI (normal, on the logs). */
export function ratioCi(a: number[], b: number[]): RatioCi {
  const { mean: m, ci95 } = pairedDifference(a.map(Math.log), b.map(Math.log));
  return { mean: Math.exp(m), lo: Math.exp(m - ci95), hi: Math.exp(m + ci95) };
}

/** A copy of xs in random order (Fisher-Yates): a new order every round, so drift favours no arm. */
export function shuffled<T>(xs: T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
