/**
 * Where a router stands between the revision it runs and the one the controller wants, and what
 * happens next, in words: one account for the API, the console and the CLI, so none of them
 * guesses from the raw columns (a rollback once read "in step" on the revision it had undone).
 */
import type { ConnectionStatus } from './router-filter.js';

export interface RevisionRef {
  profile: string;
  revision: number;
}

/** The router's newest apply result, as far as the outlook needs it. */
export interface LastResult {
  status: 'pending' | 'applied' | 'failed' | 'rolled_back';
  revision: RevisionRef | null;
  error: string | null;
  at: Date;
}

export interface OutlookInput {
  applied: RevisionRef | null;
  desired: (RevisionRef & { rolloutId: string | null }) | null;
  status: ConnectionStatus;
  decommissionedAt: Date | null;
  lastResult: LastResult | null;
}

export const REVISION_STATES = [
  'in_step',
  'held_after_rollback',
  'on_its_way',
  'waiting_for_router',
  'failed',
  'nothing_to_run',
  'decommissioned',
] as const;
export type RevisionState = (typeof REVISION_STATES)[number];

export interface Outlook {
  state: RevisionState;
  /** What the router will do next, and what would change it. */
  next: string;
  /** The rollback that set the router's state, while it holds. */
  rollback: { revision: RevisionRef; to: RevisionRef | null; at: string; reason: string } | null;
}

const named = (r: RevisionRef | null) => (r ? `${r.profile}@${r.revision}` : 'nothing of wrtfleet');
const same = (a: RevisionRef | null, b: RevisionRef | null) =>
  a === b || (!!a && !!b && a.profile === b.profile && a.revision === b.revision);

/** The reason of a rollback's result, without the "rolled back to ..." the outlook says itself. */
function reasonOf(error: string | null): string {
  return (error ?? '').replace(/: rolled back to .*$/s, '') || 'no reason given';
}

export function revisionOutlook(input: OutlookInput): Outlook {
  const { applied, desired, status, decommissionedAt, lastResult } = input;
  if (decommissionedAt)
    return {
      state: 'decommissioned',
      next: `Decommissioned on ${decommissionedAt.toISOString()}: its certificate is revoked and the controller sends it nothing. Enroll it again to manage it.`,
      rollback: null,
    };
  if (same(applied, desired) || (!desired && applied)) {
    if (lastResult?.status === 'rolled_back' && lastResult.revision && !same(lastResult.revision, applied)) {
      const undone = lastResult.revision;
      return {
        state: 'held_after_rollback',
        next:
          `Stays on ${named(applied)}. ${named(undone)} was rolled back (${reasonOf(lastResult.error)}), so the ` +
          `controller now wants ${named(applied)} and ${applied ? 'the assignment is pinned there' : 'nothing is assigned'}. ` +
          `${named(undone)} is applied again only by a new rollout or an assignment that names it.`,
        rollback: {
          revision: undone,
          to: applied,
          at: lastResult.at.toISOString(),
          reason: reasonOf(lastResult.error),
        },
      };
    }
    if (!applied)
      return {
        state: 'nothing_to_run',
        next: 'Nothing to run: no rollout or assignment has given this router a revision.',
        rollback: null,
      };
    return {
      state: 'in_step',
      next: desired
        ? `In step: stays on ${named(applied)} until a rollout or an assignment names another revision.`
        : `Runs ${named(applied)}; no desired revision is set, so the controller sends it nothing.`,
      rollback: null,
    };
  }
  const wanted = named(desired);
  if (lastResult?.status === 'failed' && same(lastResult.revision, desired))
    return {
      state: 'failed',
      next: `${wanted} failed here (${lastResult.error ?? 'no reason given'}); the router still runs ${named(applied)}. It is sent ${wanted} again when it reconnects or when a rollout names it; roll out a revision it can run to change that.`,
      rollback: null,
    };
  if (status !== 'online')
    return {
      state: 'waiting_for_router',
      next: `Gets ${wanted} when it connects${desired?.rolloutId ? ' (its rollout counts it as skipped meanwhile)' : ''}.`,
      rollback: null,
    };
  return {
    state: 'on_its_way',
    next: `${wanted} is on its way${desired?.rolloutId ? ' with its rollout' : ''}; the router runs ${named(applied)} until it applies and confirms it.`,
    rollback: null,
  };
}
