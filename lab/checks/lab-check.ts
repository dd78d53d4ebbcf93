/**
 * What a lab check is and returns (the registry is lab/checks/index.ts; check modules import
 * this file, not the registry, so that importing one check alone does not load them all).
 */
import type { Guest } from '../guest.js';
import type { LabArch } from '../image-cache.js';

/** What a check needs of a booted guest: its arch, the guest over SSH, its namespaces. */
export type CheckedGuest = Pick<Guest, 'arch' | 'host' | 'namespaces'>;

export interface CheckStep {
  name: string;
  ok: boolean;
  detail: string;
}

export interface CheckResult {
  ok: boolean;
  /** One line for the table: what held, or what did not. */
  detail: string;
  /** Measurements (milliseconds, Mbit/s, bytes...), named with their unit. */
  numbers?: Record<string, number>;
  /** The individual assertions, when a check makes several. */
  steps?: CheckStep[];
}

export interface LabCheck {
  name: string;
  arches: readonly LabArch[];
  run(guest: Guest): Promise<CheckResult>;
}

export interface CheckReport extends CheckResult {
  name: string;
  seconds: number;
}

/** Combines assertions into a result: ok when all hold, the detail naming the failed ones. */
export function resultOf(steps: CheckStep[], numbers?: Record<string, number>): CheckResult {
  const failed = steps.filter((s) => !s.ok);
  const detail = failed.length
    ? `failed: ${failed.map((s) => `${s.name} (${s.detail})`).join('; ')}`
    : steps
        .map((s) => s.detail)
        .filter(Boolean)
        .join('; ');
  return { ok: failed.length === 0 && steps.length > 0, detail, numbers, steps };
}
