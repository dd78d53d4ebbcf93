/**
 * A router's firmware tools faked in a temporary directory put first on PATH: `sysupgrade`
 * records its arguments and exits 0 (or 1 with a router-like message while `test-fails`
 * exists), `df` answers as busybox does with the free space the test sets. sha256sum, rm and
 * sh are the machine's own. Also a download source for FirmwareUpgrader that serves an image
 * from memory and can break once after a number of bytes, as a dropped stream does.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import type { DownloadFirmware } from '../../../agent/firmware/firmware-upgrader.js';

export class FakeRouterTools {
  readonly dir = mkdtempSync(join(tmpdir(), 'wf-fw-'));
  private readonly savedPath = process.env.PATH;

  constructor() {
    writeFileSync(
      join(this.dir, 'sysupgrade'),
      [
        '#!/bin/sh',
        'here=$(dirname "$0")',
        'echo "$*" >> "$here/sysupgrade.argv"',
        'if [ "$1" = -T ] && [ -f "$here/test-fails" ]; then',
        '  echo "Device xiaomi,mi-router-4a-gigabit not supported by this image" >&2',
        '  echo "Image check failed." >&2',
        '  exit 1',
        'fi',
        'exit 0',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    this.setTmpFreeKiB(200 * 1024);
    process.env.PATH = `${this.dir}:${process.env.PATH}`;
  }

  /** What `df -k /tmp` reports free. */
  setTmpFreeKiB(kib: number): void {
    writeFileSync(
      join(this.dir, 'df'),
      `#!/bin/sh\necho 'Filesystem           1K-blocks      Used Available Use% Mounted on'\necho 'tmpfs                   ${kib + 1000}      1000 ${kib}   1% /tmp'\n`,
      { mode: 0o755 },
    );
  }

  failTest(fails: boolean): void {
    if (fails) writeFileSync(join(this.dir, 'test-fails'), '');
    else rmSync(join(this.dir, 'test-fails'), { force: true });
  }

  /** Each sysupgrade run's arguments, in order. */
  sysupgradeRuns(): string[] {
    try {
      return readFileSync(join(this.dir, 'sysupgrade.argv'), 'utf8').trim().split('\n').filter(Boolean);
    } catch {
      return [];
    }
  }

  cleanup(): void {
    process.env.PATH = this.savedPath;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface ImageSource {
  download: DownloadFirmware;
  /** The offset of each request, in order. */
  requests: number[];
  /** Bytes sent over all requests. */
  served: () => number;
}

/**
 * Serves `image` in 16 KiB chunks; with breakAt, the first request fails after that many bytes;
 * with stallAt, it stops sending there without ending, until the caller gives up (its signal).
 */
export function imageSource(
  image: Buffer,
  o: { breakAt?: number; stallAt?: number; delayMs?: number } = {},
): ImageSource {
  const requests: number[] = [];
  let served = 0;
  let broken = false;
  return {
    requests,
    served: () => served,
    download: async function* (request, signal) {
      requests.push(request.offset);
      for (let at = request.offset; at < image.length; at += 16 * 1024) {
        if (o.breakAt !== undefined && !broken && at >= o.breakAt) {
          broken = true;
          throw Object.assign(new Error('14 UNAVAILABLE: connection reset'), { code: status.UNAVAILABLE });
        }
        if (o.stallAt !== undefined && !broken && at >= o.stallAt) {
          broken = true;
          await new Promise((_, reject) =>
            signal?.addEventListener('abort', () =>
              reject(Object.assign(new Error('1 CANCELLED: Call cancelled'), { code: status.CANCELLED })),
            ),
          );
        }
        if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
        const data = image.subarray(at, Math.min(image.length, at + 16 * 1024));
        served += data.length;
        yield { data };
      }
    },
  };
}
