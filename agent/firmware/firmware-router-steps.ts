/**
 * The commands each upgrade step runs on the router, through the RouterHost (so on the router
 * itself and over SSH alike). What the router printed is what a failed step reports.
 */
import { checkRoom, parseDfAvailableBytes, parseMemAvailableBytes, type RoomCheck } from '../../core/firmware/index.js';
import type { RouterHost } from '../../core/host/router-host.js';
import { shellQuote } from '../../core/host/ssh-command-channel.js';

export interface StepOutcome {
  ok: boolean;
  detail: string;
}

/** sha256sum of 64 MB on a MIPS router, sysupgrade -T unpacking an image: minutes, not seconds. */
const SLOW_COMMAND_MS = 180_000;

const said = (r: { stdout: string; stderr: string }) => `${r.stdout}${r.stderr}`.trim();

/** CHECKING: room in /tmp (RAM) for the image and sysupgrade's working room, and memory left over. */
export async function checkRouterRoom(host: RouterHost, imageBytes: number): Promise<RoomCheck> {
  const df = await host.run(['df', '-k', '/tmp']);
  const meminfo = await host.readFile('/proc/meminfo');
  return checkRoom(imageBytes, {
    tmpAvailableBytes: df.code === 0 ? parseDfAvailableBytes(df.stdout, '/tmp') : null,
    memAvailableBytes: meminfo === null ? null : parseMemAvailableBytes(meminfo),
  });
}

/** VERIFYING: the file's SHA-256 as the router computes it. */
export async function verifyImageSha(host: RouterHost, path: string, expected: string): Promise<StepOutcome> {
  const r = await host.run(['sha256sum', path], { timeoutMs: SLOW_COMMAND_MS });
  if (r.code !== 0) return { ok: false, detail: `sha256sum ${path} (exit ${r.code ?? 'none'}): ${said(r)}` };
  const actual = r.stdout.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return actual === expected.toLowerCase()
    ? { ok: true, detail: `sha256 ${actual}` }
    : { ok: false, detail: `SHA-256 mismatch: the router computed ${actual}, the controller announced ${expected}` };
}

/** sysupgrade's arguments: -n when the configuration is not kept. */
const sysupgradeArgs = (keepConfig: boolean) => (keepConfig ? [] : ['-n']);

/** TESTING: `sysupgrade -T` (the router's own image checks: board, metadata, compat version). */
export async function testImage(host: RouterHost, path: string, keepConfig: boolean): Promise<StepOutcome> {
  const argv = ['sysupgrade', '-T', ...sysupgradeArgs(keepConfig), path];
  const r = await host.run(argv, { timeoutMs: SLOW_COMMAND_MS });
  if (r.code === 0) return { ok: true, detail: said(r) };
  return { ok: false, detail: `${argv.join(' ')} (exit ${r.code ?? 'none'}): ${said(r) || 'no output'}` };
}

/** Where sysupgrade's own output goes: the agent is gone before it ends. */
export const SYSUPGRADE_LOG = '/tmp/wrtfleet-sysupgrade.log';

/**
 * FLASHING: starts sysupgrade so that it outlives the agent. A subshell puts it in the
 * background with its output in a file, so the starting shell returns at once (over SSH the
 * channel closes, as no one holds its pipes) and sysupgrade belongs to init: it kills the
 * on-router agent as it stops every process, and needs nobody to wait for it.
 */
export async function startSysupgrade(host: RouterHost, path: string, keepConfig: boolean): Promise<StepOutcome> {
  const command = ['sysupgrade', ...sysupgradeArgs(keepConfig), path].map(shellQuote).join(' ');
  const script = `(${command} </dev/null >${SYSUPGRADE_LOG} 2>&1 &) && echo started`;
  const r = await host.run(['sh', '-c', script], { timeoutMs: 30_000 });
  return r.code === 0
    ? { ok: true, detail: `${command} started` }
    : { ok: false, detail: `starting ${command} (exit ${r.code ?? 'none'}): ${said(r)}` };
}

/** A failed step's file goes: /tmp is the router's RAM. */
export async function removeImage(host: RouterHost, path: string): Promise<void> {
  await host.run(['rm', '-f', path]).catch(() => undefined);
}
