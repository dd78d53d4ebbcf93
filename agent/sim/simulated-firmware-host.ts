/**
 * The router a simulated firmware upgrade runs on: a RouterHost that answers exactly what the
 * agent's own FirmwareUpgrader asks (agent/firmware/), as SimulatedDatapath answers the
 * ApplyManager. `df -k /tmp` and /proc/meminfo report the configured room; the image streamed
 * to it is hashed and read by the fwtool reader on the way (never kept: a fleet of thousands
 * downloads at once), so `sha256sum` answers with the real hash and `sysupgrade -T` refuses
 * what a real router refuses (no or broken metadata, a board not listed, a compat version that
 * needs -n or cannot be crossed); `sysupgrade FILE` started in the background hands over to
 * `onFlash`. A scripted failure answers its step with the given words.
 */
import { createHash, type Hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  FwtoolReader,
  imageRelease,
  judgeFit,
  type FirmwareMetadata,
  type FitRefusalCode,
} from '../../core/firmware/index.js';
import type { RouterFacts } from '../../core/facts/index.js';
import type { CommandResult, FileSink, RouterHost } from '../../core/host/router-host.js';
import type { SimulatedFirmwareOptions, SimulatedFirmwareScript } from './simulated-firmware-script.js';

/** What the router flashes: the image's release and revision, and whether the configuration is kept. */
export interface SimulatedFlash {
  release: string;
  revision: string;
  keepConfig: boolean;
}

export interface SimulatedFirmwareHostOptions extends SimulatedFirmwareOptions {
  /** The router's facts now (board name, release) for sysupgrade -T. */
  facts: () => RouterFacts | undefined;
  /** The script of the upgrade under way. */
  scripted: () => SimulatedFirmwareScript;
  onFlash: (flash: SimulatedFlash) => void;
}

/** The refusals of judgeFit that sysupgrade makes itself (the others are wrtfleet's own policy). */
const SYSUPGRADE_REFUSES: FitRefusalCode[] = ['board', 'unknown_board', 'compat', 'config_reset_needed'];

const MIB = 1024 * 1024;
const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });
const failed = (stderr: string, code = 1): CommandResult => ({ code, stdout: '', stderr });

interface Received {
  path: string;
  hash: Hash;
  reader: FwtoolReader;
  bytes: number;
  sha256?: string;
  metadata?: FirmwareMetadata;
  refusal?: string;
}

export class SimulatedFirmwareHost implements RouterHost {
  readonly description = 'simulated router (firmware)';
  private image: Received | undefined;

  constructor(private readonly options: SimulatedFirmwareHostOptions) {}

  private failing(step: NonNullable<SimulatedFirmwareScript['failStep']>): string | undefined {
    const s = this.options.scripted();
    return s.failStep === step ? (s.failDetail ?? `simulated failure at ${step}`) : undefined;
  }

  async run(argv: string[]): Promise<CommandResult> {
    const [command, ...args] = argv;
    if (command === 'df') {
      const fail = this.failing('checking');
      if (fail) throw new Error(fail);
      const kib = Math.floor((this.options.tmpFreeBytes ?? 100 * MIB) / 1024);
      return ok(`Filesystem 1K-blocks Used Available Use% Mounted on\ntmpfs ${kib + 2048} 2048 ${kib} 1% /tmp\n`);
    }
    if (command === 'sha256sum') {
      const fail = this.failing('verifying');
      if (fail) throw new Error(fail);
      const image = this.finished(args[0]!);
      return image
        ? ok(`${image.sha256}  ${image.path}\n`)
        : failed(`sha256sum: ${args[0]}: No such file or directory`);
    }
    if (command === 'sysupgrade' && args[0] === '-T') return this.test(args.includes('-n'), args.at(-1)!);
    if (command === 'sh' && /^\(sysupgrade /.test(args[1] ?? '')) return this.flash(args[1]!);
    if (command === 'rm') {
      if (this.image && args.includes(this.image.path)) this.image = undefined;
      return ok();
    }
    return failed(`${command}: not simulated`, 127);
  }

  async readFile(path: string): Promise<string | null> {
    if (path !== '/proc/meminfo') return null;
    const kib = Math.floor((this.options.memAvailableBytes ?? 180 * MIB) / 1024);
    return `MemTotal:         ${kib * 2} kB\nMemFree:          ${kib} kB\nMemAvailable:     ${kib} kB\n`;
  }

  async readBinary(): Promise<Buffer | null> {
    return null;
  }

  async writeFile(path: string): Promise<void> {
    throw new Error(`simulated router: only the firmware image is written (refused ${path})`);
  }

  async openWrite(path: string): Promise<FileSink> {
    const image: Received = { path, hash: createHash('sha256'), reader: new FwtoolReader(), bytes: 0 };
    this.image = image;
    const o = this.options;
    if (o.transferDelayMs) await sleep(o.transferDelayMs);
    const fail = this.failing('transferring');
    return {
      write: async (chunk) => {
        if (fail && image.bytes > 0) throw new Error(fail);
        image.hash.update(chunk);
        image.reader.update(chunk);
        image.bytes += chunk.length;
        if (o.transferBytesPerSecond) await sleep((chunk.length / o.transferBytesPerSecond) * 1000);
      },
      close: async () => {
        if (fail) throw new Error(fail);
        image.sha256 = image.hash.digest('hex');
        try {
          image.metadata = image.reader.finish(path.split('/').pop()).metadata;
        } catch (err) {
          image.refusal = (err as Error).message;
        }
      },
      abort: async () => undefined,
    };
  }

  async close(): Promise<void> {}

  private finished(path: string): Received | undefined {
    const image = this.image;
    return image?.path === path && image.sha256 !== undefined ? image : undefined;
  }

  /** sysupgrade -T: fwtool's checks of the metadata against this router. */
  private test(configReset: boolean, path: string): CommandResult {
    const fail = this.failing('testing');
    if (fail) return failed(fail);
    const image = this.finished(path);
    if (!image) return failed(`Image not found: ${path}`);
    if (!image.metadata) return failed(`${image.refusal ?? 'no metadata'}\nImage check failed.`);
    const facts = this.options.facts();
    const verdict = judgeFit(
      image.metadata,
      {
        boardName: facts?.boardName ?? null,
        target: facts?.target ?? null,
        release: facts?.openwrt?.release ?? null,
        revision: facts?.openwrt?.revision ?? null,
        compatVersion: this.options.compatVersion ?? null,
      },
      { keepConfig: !configReset, allowDowngrade: true },
    );
    const refusals = verdict.refusals.filter((r) => SYSUPGRADE_REFUSES.includes(r.code));
    if (refusals.length > 0) return failed(`${refusals.map((r) => r.reason).join('\n')}\nImage check failed.`);
    return ok();
  }

  /** `(sysupgrade [-n] FILE ...&)`: the router flashes what passed -T. */
  private flash(script: string): CommandResult {
    const path = /^\(sysupgrade (?:-n )?(\S+)/.exec(script)?.[1];
    const image = path ? this.finished(path) : undefined;
    if (!image?.metadata) return failed(`sysupgrade: no tested image at ${path}`);
    this.options.onFlash({ ...imageRelease(image.metadata), keepConfig: !/^\(sysupgrade -n /.test(script) });
    this.image = undefined;
    return ok('started\n');
  }
}
