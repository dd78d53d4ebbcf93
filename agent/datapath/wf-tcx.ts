/**
 * The wf-tcx helper (bpf/tcx-helper) as the loader calls it: TCX links, which OpenWrt's tc and
 * bpftool predate, and the bpffs directory operations pinned state needs. Every subcommand
 * prints one JSON line last.
 */
import type { RouterHost } from '../../core/host/router-host.js';
import { LOCAL_TCX_HELPER } from './programs.js';

/** What `wf-tcx attach` and `wf-tcx info` report about a TCX link. */
export interface TcxLink {
  link_id: number;
  prog_id: number;
  ifindex: number;
}

/** Runs a wf-tcx subcommand and returns its JSON; a failure is an error with the helper's reason. */
export async function wfTcx<T>(host: RouterHost, helper: string, args: string[]): Promise<T> {
  const r = await host.run([helper, ...args]);
  let j: unknown;
  try {
    j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    throw new Error(`wf-tcx ${args.join(' ')}: no JSON (exit ${r.code}): ${r.stderr.trim()}`);
  }
  if (r.code !== 0) throw new Error(`wf-tcx ${args.join(' ')}: ${(j as { error?: string }).error ?? r.stderr}`);
  return j as T;
}

/** The entries of a bpffs directory (`wf-tcx ls`). */
export async function bpffsEntries(
  host: RouterHost,
  helper: string,
  dir: string,
): Promise<{ name: string; dir: boolean }[]> {
  return (await wfTcx<{ entries: { name: string; dir: boolean }[] }>(host, helper, ['ls', dir])).entries;
}

/** Attaches the program pinned at `progPin` to TCX egress of `ifindex`, pinning the link at `linkPin`. */
export function attachTcx(
  host: RouterHost,
  helper: string,
  ifindex: number,
  progPin: string,
  linkPin: string,
): Promise<TcxLink> {
  return wfTcx<TcxLink>(host, helper, ['attach', String(ifindex), progPin, linkPin]);
}

/** The TCX link pinned at `linkPin`; null when wf-tcx cannot read it. */
export function tcxLinkInfo(host: RouterHost, helper: string, linkPin: string): Promise<TcxLink | null> {
  return wfTcx<TcxLink>(host, helper, ['info', linkPin]).catch(() => null);
}

export async function detachTcx(host: RouterHost, helper: string, linkPin: string): Promise<void> {
  await wfTcx(host, helper, ['detach', linkPin]);
}

/** True when the kernel has TCX and wf-tcx runs on the host. */
export async function probeTcx(host: RouterHost, helper = LOCAL_TCX_HELPER): Promise<{ ok: boolean; reason?: string }> {
  const r = await host.run([helper, 'probe']);
  if (r.code === 0) return { ok: true };
  return { ok: false, reason: (r.stdout || r.stderr).trim() || `exit ${r.code}` };
}
