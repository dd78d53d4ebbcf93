/**
 * How a simulated router's firmware upgrade goes, scripted per router (tests, benchmarks, the
 * demo). The router is otherwise a faithful one: it really downloads the image, checks its
 * SHA-256 and refuses in `sysupgrade -T` what a real router refuses.
 *
 * After the flash (`returns`, the default) it is away `rebootMs` and comes back with a new boot
 * id, the image's release and revision, the kernel that release ships and its datapath gone (the
 * agent's reboot re-apply puts the applied plan back). The other endings:
 * - `never-returns`: it never connects again (a bricked router, one stuck in its bootloader);
 * - `old-release`: it comes back with a new boot id on the release it ran (the bootloader fell
 *   back to the other image, or the flash failed after the point of no return);
 * - `config-reset`: the configuration is gone, as after `sysupgrade -n` (an upgrade with
 *   keep_config false always ends so): nothing of wrtfleet is applied any more (the agent's
 *   applied state and the router's uci settings are gone), but it still connects as itself.
 *   That is what a proxy sees, whose credentials live on the proxy host; an on-router agent
 *   whose credentials were wiped could not connect at all: script `never-returns` for that.
 */
import { createHash } from 'node:crypto';
import type { FirmwareUpgrade } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';

export type SimulatedFirmwareEnding = 'returns' | 'never-returns' | 'old-release' | 'config-reset';

/** The steps a router can fail before anything is flashed. */
export type SimulatedFirmwareFailingStep = 'checking' | 'transferring' | 'verifying' | 'testing';

export interface SimulatedFirmwareScript {
  /** How the router comes back from the flash (default `returns`). */
  ending?: SimulatedFirmwareEnding;
  /** This step fails, with `failDetail` as what the router said (nothing is flashed). */
  failStep?: SimulatedFirmwareFailingStep;
  failDetail?: string;
}

export interface SimulatedFirmwareOptions {
  /** The script of each upgrade; default: every upgrade goes well. */
  script?: (upgrade: FirmwareUpgrade) => SimulatedFirmwareScript | undefined;
  /** Transfer speed onto the router, bytes per second (default: as fast as the controller serves). */
  transferBytesPerSecond?: number;
  /** A fixed time added before the first byte is written (a slow start, a busy router). */
  transferDelayMs?: number;
  /** How long the router is away after FLASHING: flash writing and boot (default 4000 ms). */
  rebootMs?: number;
  /** Free space in /tmp and available memory it reports (defaults 100 MiB and 180 MiB). */
  tmpFreeBytes?: number;
  memAvailableBytes?: number;
  /** The router's compat_version (uci system.@system[0].compat_version); default "1.0". */
  compatVersion?: string | null;
}

/** One rule of a fleet's firmware script: routers whose identity or name matches, or a share of them. */
export interface SimulatedFirmwareRule extends SimulatedFirmwareScript {
  /** Matched against the identity (`sim.<model>:<serial>`) and the name (`<model>-<serial>`); default: every router. */
  match?: RegExp;
  /** Only this fraction (0-1) of the matching routers, chosen by a hash of the identity: stable across runs. */
  share?: number;
}

/** Where in [0, 1) a router falls for `share`: the same router always falls in the same place. */
export function shareOf(identity: string): number {
  return createHash('sha256').update(identity).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * A fleet's firmware script from rules, the first rule that takes a router wins. For example
 * `[{ share: 0.05, ending: 'never-returns' }]` loses 5 % of the fleet in every rollout, and
 * `[{ match: /mt7621/, failStep: 'testing', failDetail: 'Image check failed.' }]` a model.
 */
export function firmwareScriptByRules(
  rules: SimulatedFirmwareRule[],
): (identity: string, name: string) => SimulatedFirmwareScript | undefined {
  return (identity, name) => {
    for (const { match, share, ...script } of rules) {
      if (match && !match.test(identity) && !match.test(name)) continue;
      if (share !== undefined && shareOf(identity) >= share) continue;
      return script;
    }
    return undefined;
  };
}

/** The kernel each OpenWrt release ships (its main targets), so a simulated upgrade changes it as a real one does. */
const RELEASE_KERNELS: [RegExp, string][] = [
  [/^19\.07\./, '4.14.275'],
  [/^21\.02\./, '5.4.238'],
  [/^22\.03\./, '5.10.201'],
  [/^23\.05\./, '5.15.167'],
  [/^24\.10\./, '6.6.86'],
];

/** The kernel of `release`; null for a release not in the table (SNAPSHOT): the router keeps its kernel. */
export function kernelForRelease(release: string): string | null {
  return RELEASE_KERNELS.find(([pattern]) => pattern.test(release))?.[1] ?? null;
}
