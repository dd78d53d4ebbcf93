import type { WrtfleetClient } from './create-client.js';
import { unwrap, WrtfleetError } from './errors.js';
import { streamEvents } from './events.js';
import type { Rollout } from './types.js';

/**
 * The states a rollout does not leave (server/routes/v1/rollouts/rollout-schemas.ts, TERMINAL).
 * `paused` and `awaiting_approval` are not among them: an operator resumes or promotes those.
 */
export const TERMINAL_ROLLOUT_STATES: ReadonlySet<string> = new Set(['completed', 'cancelled']);

export interface WaitForRolloutOptions {
  /** Stops waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with the rollout each time its progress changes. */
  onProgress?(rollout: Rollout): void;
}

/** Waits between reconnects after a lost stream; long enough not to hammer a restarting controller. */
const RECONNECT_MS = 1_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

/**
 * Resolves with the rollout once it is completed or cancelled, following its server-sent event
 * stream (GET /v1/rollouts/{id}/events: `progress` with the rollout whenever it changes, `end`
 * once it ends). The stream is bounded by the controller's time limit and can break with the
 * connection; either way this reconnects and carries on, so a rollout that soaks for an hour is
 * waited for. A paused rollout keeps it waiting (give a signal to bound that). A refusal (404:
 * no such rollout, 401, 403) rejects at once, as a WrtfleetError.
 */
export async function waitForRollout(
  client: WrtfleetClient,
  id: string,
  options: WaitForRolloutOptions = {},
): Promise<Rollout> {
  const path = `/v1/rollouts/${encodeURIComponent(id)}/events`;
  for (;;) {
    try {
      for await (const { event, data } of streamEvents(client, path, { signal: options.signal })) {
        if (event === 'progress') {
          const rollout = data as Rollout;
          options.onProgress?.(rollout);
          if (TERMINAL_ROLLOUT_STATES.has(rollout.state)) return rollout;
        }
        // `end` follows the terminal progress event, so it is only reached when that was missed.
        if (event === 'end') break;
      }
    } catch (err) {
      options.signal?.throwIfAborted();
      // A refusal will not change on a retry; a stream error (200) or an outage (0, 5xx) may.
      if (err instanceof WrtfleetError && err.status >= 400 && err.status < 500) throw err;
    }
    // The stream ended or broke without a terminal progress event: read the rollout itself.
    const rollout = await unwrap(
      client.GET('/v1/rollouts/{id}', { params: { path: { id } }, signal: options.signal }),
    ).catch((err: unknown) => {
      options.signal?.throwIfAborted();
      if (err instanceof WrtfleetError && err.status >= 400 && err.status < 500) throw err;
      return null;
    });
    if (rollout && TERMINAL_ROLLOUT_STATES.has(rollout.state)) {
      options.onProgress?.(rollout);
      return rollout;
    }
    await sleep(RECONNECT_MS, options.signal);
  }
}
