/**
 * How an onboarding job ends early: cancelled, or a step failed, with a message the operator can
 * act on; and what each step left behind, so the job can take it back (newest first).
 */
import { SshError } from '../../core/host/ssh-host.js';

/** Stopped between steps: on request, or because the controller is shutting down. */
export class Cancelled extends Error {}

/** Failure with a message for the operator (never a secret: messages are built from non-secret fields). */
export class StepFailure extends Error {}

/** Something a step left behind on the router or the controller, and how to remove it. */
export interface Undo {
  what: string;
  run: () => Promise<void>;
}

/** The job's error message for a failure during `step`. */
export function describeFailure(err: unknown, step: string): string {
  if (err instanceof StepFailure) return err.message;
  if (err instanceof SshError) {
    // After the first step, losing the connection means the router went away under us.
    if (step !== 'connect' && err.kind !== 'auth' && err.kind !== 'host-key')
      return `lost the router during ${step}: ${err.message}`;
    return err.message;
  }
  const m = (err as Error).message ?? String(err);
  return `${step} failed: ${m}`;
}
