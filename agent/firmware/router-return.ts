/**
 * A proxy after FLASHING: its agent outlives the router's reboot, so it waits for the router to
 * go away and come back over SSH before it says Hello again. Back means a boot id other than the
 * one before the flash (sysupgrade needs a minute or more before it reboots, and until then the
 * old boot id still answers). Polled with a backoff (5 s doubling to 30 s while the router does
 * not answer), for a bounded time; every attempt resets the SSH host's own connect backoff, which
 * would otherwise hold the first minute after the router is back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RouterHost } from '../../core/host/router-host.js';
import { BOOT_ID_PATH } from '../apply/reboot.js';

/** What a proxy's SshHost offers beyond RouterHost; absent on other hosts. */
type Redialling = RouterHost & { resetBackoff?: () => void; disconnect?: () => Promise<void> };

export interface RouterReturnOptions {
  /** The boot id before the flash (null: unknown, then any answer after a silence counts). */
  bootIdBefore: string | null;
  /** Default /proc/sys/kernel/random/boot_id; tests point it at a file they change. */
  bootIdPath?: string;
  /** Give up after this long (default 15 min: flashing a slow NOR flash, then booting). */
  timeoutMs?: number;
  /** First poll delay and the cap of the backoff (defaults 5 s and 30 s). */
  pollMs?: number;
  maxPollMs?: number;
  /** One reading's time limit (default 10 s): a connection to a router that rebooted hangs until keepalive notices. */
  readTimeoutMs?: number;
  signal?: AbortSignal;
  log?: (message: string) => void;
}

export interface RouterReturn {
  bootId: string;
  /** The router stopped answering at least once in between. */
  wentAway: boolean;
  waitedMs: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Reading = { id: string } | { error: Error };

async function readOnce(host: Redialling, path: string, timeoutMs: number): Promise<Reading> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Reading>((resolve) => {
    timer = setTimeout(() => resolve({ error: new Error(`no answer within ${timeoutMs} ms`) }), timeoutMs);
  });
  const read = host.run(['cat', path], { timeoutMs }).then(
    (r): Reading =>
      r.code === 0 && UUID.test(r.stdout.trim())
        ? { id: r.stdout.trim() }
        : { error: new Error(`cat ${path} (exit ${r.code ?? 'none'}): ${r.stderr.trim()}`) },
    (err: unknown): Reading => ({ error: err as Error }),
  );
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function waitForRouterReturn(host: Redialling, o: RouterReturnOptions): Promise<RouterReturn> {
  const started = Date.now();
  const deadline = started + (o.timeoutMs ?? 15 * 60_000);
  const firstPoll = o.pollMs ?? 5_000;
  const path = o.bootIdPath ?? BOOT_ID_PATH;
  let delay = firstPoll;
  let wentAway = false;
  let last = 'no reading yet';
  while (Date.now() < deadline) {
    await sleep(Math.min(delay, Math.max(0, deadline - Date.now())), undefined, { signal: o.signal });
    host.resetBackoff?.();
    const reading = await readOnce(host, path, o.readTimeoutMs ?? 10_000);
    if ('id' in reading) {
      if (reading.id !== o.bootIdBefore && (o.bootIdBefore !== null || wentAway))
        return { bootId: reading.id, wentAway, waitedMs: Date.now() - started };
      delay = firstPoll; // still the old boot: sysupgrade is writing the flash
      last = 'the router still runs the boot before the flash';
      continue;
    }
    const kind = (reading.error as { kind?: string }).kind;
    if (kind === 'host-key' || kind === 'auth')
      throw new Error(
        `the router answers but refuses this proxy (${reading.error.message}); after an upgrade without the configuration kept its SSH keys and password are new: pin the new host key and credentials`,
      );
    if (!wentAway) o.log?.(`the router went away (${reading.error.message}); waiting for it to come back`);
    wentAway = true;
    last = reading.error.message;
    // A connection to the router before its reboot is dead: drop it so the next reading dials.
    await host.disconnect?.().catch(() => undefined);
    delay = Math.min(delay * 2, o.maxPollMs ?? 30_000);
  }
  throw new Error(`the router did not come back within ${Math.round((deadline - started) / 1000)} s (last: ${last})`);
}
