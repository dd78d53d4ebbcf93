import type { OpenWrtRelease } from './types.js';
import { isRecord, stringField } from './source.js';

/**
 * `ubus call system board` (procd): kernel, system (cpuinfo's `system type` on MIPS, a
 * useless "ARMv8 Processor rev N" on arm64), model, board_name and the release block.
 * The same data as the files, but only while procd runs; used to fill what files lack.
 */
export interface UbusBoard {
  kernel: string | null;
  system: string | null;
  model: string | null;
  boardName: string | null;
  release: Partial<OpenWrtRelease> | null;
}

export function parseUbusBoard(json: unknown): UbusBoard | null {
  if (!isRecord(json)) return null;
  const release = isRecord(json['release']) ? json['release'] : null;
  const board: UbusBoard = {
    kernel: stringField(json, 'kernel'),
    system: stringField(json, 'system'),
    model: stringField(json, 'model'),
    boardName: stringField(json, 'board_name'),
    release:
      release && stringField(release, 'version')
        ? {
            distribution: stringField(release, 'distribution') ?? 'OpenWrt',
            release: stringField(release, 'version') ?? undefined,
            target: stringField(release, 'target'),
            revision: stringField(release, 'revision'),
            source: 'ubus call system board',
          }
        : null,
  };
  const anything = board.kernel ?? board.system ?? board.model ?? board.boardName ?? board.release;
  return anything === null ? null : board;
}
