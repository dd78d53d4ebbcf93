/**
 * One router's firmware upgrade (FirmwareUpgrade), step by step, each reported with a
 * FirmwareProgress: CHECKING (room in /tmp and memory, before any byte moves), TRANSFERRING
 * (DownloadFirmware into /tmp on the router, resumed after a broken stream), VERIFYING
 * (sha256sum on the router), TESTING (`sysupgrade -T`), FLASHING (reported first, then
 * sysupgrade started so that it outlives the agent). It works through the RouterHost only, so
 * the on-router agent and a proxy run the same code. A failed step reports failed=true with
 * what the router said and removes the file; nothing was flashed.
 *
 * One upgrade at a time: a second copy of the running upgrade's message (or of the one that
 * reached FLASHING) is ignored, as the contract says; another upgrade meanwhile is refused.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import type { FirmwareProgress, FirmwareUpgrade } from '../../proto/gen/wrtfleet/agent/v1/firmware.js';
import { firmwareProgress, FirmwareProgress_Step, stepName, TransferReporting } from './firmware-progress.js';
import {
  checkRouterRoom,
  removeImage,
  startSysupgrade,
  testImage,
  verifyImageSha,
  type StepOutcome,
} from './firmware-router-steps.js';
import { transferImage, type DownloadFirmware } from './firmware-transfer.js';

export type { DownloadFirmware } from './firmware-transfer.js';

/** Where the image is written on the router: /tmp is RAM, which sysupgrade reads it from. */
export const FIRMWARE_IMAGE_PATH = '/tmp/wrtfleet-firmware.bin';

export interface FirmwareUpgraderOptions {
  host: RouterHost;
  download: DownloadFirmware;
  /** Sends one FirmwareProgress up the controller stream. */
  send: (progress: FirmwareProgress) => void;
  /** Default FIRMWARE_IMAGE_PATH. */
  imagePath?: string;
  /** The transfer's retries and how often it reports bytes (defaults: 4 attempts, 1-8 s apart, every 2 s or 10 %). */
  transfer?: {
    attempts?: number;
    retryDelayMs?: (retry: number) => number;
    stallMs?: number;
    reportIntervalMs?: number;
  };
  /** Called once sysupgrade started (a proxy then waits for its router to come back). */
  onFlashing?: (upgrade: FirmwareUpgrade) => void;
  log?: (message: string) => void;
}

/** The upgrade this agent works on: running, or flashed (then only a restart or routerReturned() clears it). */
export interface ActiveUpgrade {
  upgradeId: string;
  step: FirmwareProgress_Step;
  flashing: boolean;
}

class StepFailed extends Error {}

const SHA256 = /^[0-9a-f]{64}$/;

export class FirmwareUpgrader {
  private current: ActiveUpgrade | undefined;

  constructor(private readonly options: FirmwareUpgraderOptions) {}

  get active(): ActiveUpgrade | undefined {
    return this.current && { ...this.current };
  }

  /** The router came back from the flash (a proxy): later upgrades may run. */
  routerReturned(): void {
    if (this.current?.flashing) this.current = undefined;
  }

  /** Runs `upgrade` to FLASHING or to its failed step; resolves when it ended (or was ignored or refused). */
  async handle(upgrade: FirmwareUpgrade): Promise<void> {
    const id = upgrade.upgradeId;
    const running = this.current;
    if (running?.upgradeId === id) {
      this.log(
        `upgrade ${id}: already ${running.flashing ? 'flashing' : stepName(running.step)}; ignoring the repeated message`,
      );
      // The controller sends it again to a router that reconnected: the report of the current
      // step may have been lost with the old stream, so it goes again.
      this.options.send(firmwareProgress(id, running.step));
      return;
    }
    if (running) {
      const detail = `refused: upgrade ${running.upgradeId} is ${running.flashing ? 'flashing' : `at ${stepName(running.step)}`} on this router`;
      this.log(`upgrade ${id}: ${detail}`);
      this.options.send(firmwareProgress(id, FirmwareProgress_Step.STEP_CHECKING, { failed: true, detail }));
      return;
    }
    this.current = { upgradeId: id, step: FirmwareProgress_Step.STEP_CHECKING, flashing: false };
    try {
      await this.run(upgrade);
    } catch (err) {
      const step = this.current.step;
      const detail = (err as Error).message;
      this.log(`upgrade ${id} failed at ${stepName(step)}: ${detail}`);
      this.options.send(firmwareProgress(id, step, { failed: true, detail }));
      if (step !== FirmwareProgress_Step.STEP_CHECKING) await removeImage(this.options.host, this.imagePath);
      this.current = undefined;
    }
  }

  private get imagePath(): string {
    return this.options.imagePath ?? FIRMWARE_IMAGE_PATH;
  }

  private log(message: string): void {
    this.options.log?.(message);
  }

  /** Enters a step: reported before its work starts. */
  private enter(upgrade: FirmwareUpgrade, step: FirmwareProgress_Step, detail = ''): void {
    this.current!.step = step;
    this.options.send(firmwareProgress(upgrade.upgradeId, step, { detail }));
  }

  private async run(upgrade: FirmwareUpgrade): Promise<void> {
    const { host } = this.options;
    const what = `${upgrade.release || 'an image'}${upgrade.revision ? ` (${upgrade.revision})` : ''}`;
    this.log(`upgrade ${upgrade.upgradeId}: ${what}, ${upgrade.sizeBytes} bytes, keep_config ${upgrade.keepConfig}`);
    this.enter(upgrade, FirmwareProgress_Step.STEP_CHECKING);
    if (!SHA256.test(upgrade.sha256))
      throw new StepFailed(`the upgrade names no SHA-256 (${JSON.stringify(upgrade.sha256)})`);
    if (!(upgrade.sizeBytes > 0)) throw new StepFailed('the upgrade names no image size');
    if (!host.openWrite) throw new StepFailed(`${host.description} cannot receive a file`);
    const room = await checkRouterRoom(host, upgrade.sizeBytes);
    if (!room.ok) throw new StepFailed(room.reason);

    this.enter(upgrade, FirmwareProgress_Step.STEP_TRANSFERRING, room.reason);
    await this.transfer(upgrade);

    this.enter(upgrade, FirmwareProgress_Step.STEP_VERIFYING);
    must(await verifyImageSha(host, this.imagePath, upgrade.sha256));

    this.enter(upgrade, FirmwareProgress_Step.STEP_TESTING);
    must(await testImage(host, this.imagePath, upgrade.keepConfig));

    this.enter(upgrade, FirmwareProgress_Step.STEP_FLASHING);
    must(await startSysupgrade(host, this.imagePath, upgrade.keepConfig));
    this.current!.flashing = true;
    this.log(`upgrade ${upgrade.upgradeId}: sysupgrade started; the router reboots into ${what}`);
    this.options.onFlashing?.(upgrade);
  }

  private async transfer(upgrade: FirmwareUpgrade): Promise<void> {
    const o = this.options;
    const sink = await o.host.openWrite!(this.imagePath, 0o600);
    const reporting = new TransferReporting(upgrade.sizeBytes, o.transfer?.reportIntervalMs);
    let reported = 0;
    try {
      await transferImage({
        download: o.download,
        sink,
        sha256: upgrade.sha256,
        sizeBytes: upgrade.sizeBytes,
        attempts: o.transfer?.attempts,
        retryDelayMs: o.transfer?.retryDelayMs,
        stallMs: o.transfer?.stallMs,
        log: (message) => this.log(`upgrade ${upgrade.upgradeId}: ${message}`),
        onBytes: (bytesDone) => {
          if (!reporting.due(bytesDone)) return;
          reported = bytesDone;
          o.send(firmwareProgress(upgrade.upgradeId, FirmwareProgress_Step.STEP_TRANSFERRING, { bytesDone }));
        },
      });
      await sink.close();
    } catch (err) {
      await sink.abort();
      throw err;
    }
    if (reported !== upgrade.sizeBytes)
      o.send(
        firmwareProgress(upgrade.upgradeId, FirmwareProgress_Step.STEP_TRANSFERRING, { bytesDone: upgrade.sizeBytes }),
      );
  }
}

function must(outcome: StepOutcome): void {
  if (!outcome.ok) throw new StepFailed(outcome.detail);
}
