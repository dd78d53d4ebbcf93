/**
 * cls_bpf filters on the clsact egress hook: the attach path where TCX is missing. Our filters
 * are owned by priority (CLS_PRIO) and handle (CLS_HANDLE), so leftovers are found even without
 * pins (a crash between `tc filter replace` and the pin, a deleted pin directory).
 */
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import type { ObjectName } from './programs.js';

/**
 * cls_bpf priorities we own, one per object: filters run in ascending priority, and
 * 0xC0DE.. sits far from tc's auto-assigned 49152 (0xC000) and from the small numbers
 * people type by hand. Each program returns TC_ACT_UNSPEC, so all of them run.
 */
export const CLS_PRIO: Record<ObjectName, number> = {
  set_ip_id_zero: 0xc0de,
  set_ip_ttl: 0xc0df,
  set_tcp_syn_window: 0xc0e0,
  clear_tcp_syn_ts: 0xc0e1,
  wf_chain: 0xc0e2,
};
const CLS_HANDLE = 0x5746; // "WF"
const OUR_PRIOS = new Set(Object.values(CLS_PRIO));

export interface ClsFilter {
  prio: number;
  handle: string;
  progId?: number;
}

/** The bpf filters on the egress hook of `ifname` (none when it has no clsact qdisc). */
export async function clsFilters(host: RouterHost, ifname: string): Promise<ClsFilter[]> {
  const r = await host.run(['tc', '-j', 'filter', 'show', 'dev', ifname, 'egress']);
  if (r.code !== 0 || !r.stdout.trim()) return [];
  const rows = JSON.parse(r.stdout) as {
    pref: number;
    kind: string;
    options?: { handle?: string; prog?: { id: number } };
  }[];
  return rows
    .filter((f) => f.kind === 'bpf' && f.options?.handle)
    .map((f) => ({ prio: f.pref, handle: f.options!.handle!, progId: f.options?.prog?.id }));
}

export async function hasClsact(host: RouterHost, ifname: string): Promise<boolean> {
  const r = await host.run(['tc', '-j', 'qdisc', 'show', 'dev', ifname]);
  if (r.code !== 0) return false;
  return (JSON.parse(r.stdout || '[]') as { kind: string }[]).some((q) => q.kind === 'clsact');
}

export async function addClsact(host: RouterHost, ifname: string): Promise<void> {
  await runChecked(host, ['tc', 'qdisc', 'add', 'dev', ifname, 'clsact']);
}

/** Points our filter at `prio` to a pinned program; replace is atomic: the old program runs until the new one is in place. */
export async function replaceFilter(host: RouterHost, ifname: string, prio: number, progPin: string): Promise<void> {
  await runChecked(host, [
    'tc',
    'filter',
    'replace',
    'dev',
    ifname,
    'egress',
    'prio',
    String(prio),
    'handle',
    `0x${CLS_HANDLE.toString(16)}`,
    'bpf',
    'da',
    'object-pinned',
    progPin,
  ]);
}

export async function deleteFilter(host: RouterHost, ifname: string, f: ClsFilter): Promise<void> {
  await runChecked(host, [
    'tc',
    'filter',
    'del',
    'dev',
    ifname,
    'egress',
    'prio',
    String(f.prio),
    'handle',
    f.handle,
    'bpf',
  ]);
}

/** Deletes every filter at one of our priorities. */
export async function deleteOwnedFilters(host: RouterHost, ifname: string, changes: string[]): Promise<void> {
  for (const f of await clsFilters(host, ifname)) {
    if (!OUR_PRIOS.has(f.prio)) continue;
    await deleteFilter(host, ifname, f);
    changes.push(`${ifname}: deleted cls_bpf filter prio ${f.prio}`);
  }
}

/** Deletes the filters at our priorities whose program is none of `keep` (program ids). */
export async function deleteStrayFilters(
  host: RouterHost,
  ifname: string,
  keep: ReadonlySet<number>,
  changes: string[],
): Promise<void> {
  for (const f of await clsFilters(host, ifname)) {
    if (OUR_PRIOS.has(f.prio) && !keep.has(f.progId ?? -1)) {
      await deleteFilter(host, ifname, f);
      changes.push(`${ifname}: deleted stray filter prio ${f.prio}`);
    }
  }
}

/** Deletes the clsact qdisc once no filter (ours or anyone's, either direction) is left on it. */
export async function deleteClsactIfEmpty(host: RouterHost, ifname: string, changes: string[]): Promise<void> {
  const eg = await host.run(['tc', '-j', 'filter', 'show', 'dev', ifname, 'egress']);
  const ing = await host.run(['tc', '-j', 'filter', 'show', 'dev', ifname, 'ingress']);
  const empty = (s: string) => !s.trim() || (JSON.parse(s) as unknown[]).length === 0;
  if (eg.code === 0 && ing.code === 0 && empty(eg.stdout) && empty(ing.stdout) && (await hasClsact(host, ifname))) {
    await runChecked(host, ['tc', 'qdisc', 'del', 'dev', ifname, 'clsact']);
    changes.push(`${ifname}: deleted clsact qdisc (created by us, now empty)`);
  }
}
