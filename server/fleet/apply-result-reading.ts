/** What the controller reads out of an agent's ApplyResult: its status as stored, and a rollback's destination. */
import { ApplyResult_Status } from '../../proto/gen/wrtfleet/agent/v1/agent.js';

export const APPLY_STATUS = {
  [ApplyResult_Status.STATUS_APPLIED]: 'applied',
  [ApplyResult_Status.STATUS_FAILED]: 'failed',
  [ApplyResult_Status.STATUS_ROLLED_BACK]: 'rolled_back',
  [ApplyResult_Status.STATUS_REFUSED]: 'failed',
} as const;

/**
 * What a ROLLED_BACK result's evidence says the router runs now (agent/apply/confirm-window.ts,
 * rolledBackResult): a revision, null for nothing, undefined when the evidence does not say.
 */
export function rolledBackToOf(evidence: unknown): { profile: string; revision: number } | null | undefined {
  if (!evidence || typeof evidence !== 'object' || !('rolledBackTo' in evidence)) return undefined;
  const to = (evidence as { rolledBackTo: unknown }).rolledBackTo;
  if (to === null) return null;
  const { profile, revision } = (to ?? {}) as { profile?: unknown; revision?: unknown };
  return typeof profile === 'string' && typeof revision === 'number' ? { profile, revision } : undefined;
}
