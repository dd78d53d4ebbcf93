/**
 * Undoing what the loader attached to an interface: one object (its configuration changed, or
 * it left the chain), or everything (the interface is no longer eligible, was re-created, or
 * the datapath is detached).
 */
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { CLS_PRIO, clsFilters, deleteClsactIfEmpty, deleteFilter, deleteOwnedFilters } from './cls-bpf.js';
import { pinnedProgId, removePins, type IfaceState, type ProgState } from './pinned-state.js';
import type { LinkInfo } from './wan-eligibility.js';
import { detachTcx } from './wf-tcx.js';

/** Detaches one pinned object (its TCX link or its cls_bpf filter) and removes its pins. */
export async function removeObject(
  host: RouterHost,
  helper: string,
  ifname: string,
  p: ProgState,
  changes: string[],
): Promise<void> {
  if (p.hasLink) {
    await detachTcx(host, helper, `${p.dir}/link`);
    changes.push(`${ifname}: detached TCX link of ${p.object}-${p.fingerprint}`);
  }
  const progId = await pinnedProgId(host, `${p.dir}/prog`);
  if (progId !== null) {
    for (const f of await clsFilters(host, ifname)) {
      if (f.prio === CLS_PRIO[p.object] && f.progId === progId) {
        await deleteFilter(host, ifname, f);
        changes.push(`${ifname}: deleted cls_bpf filter prio ${f.prio} (${p.object})`);
      }
    }
  }
  await removePins(host, helper, p.dir);
}

/**
 * Removes every trace of our chain on one interface (pins, links, filters, gso, clsact).
 * `present` is the device now carrying the name: the kernel-side undo is only for the device
 * the state was pinned for, a re-created one never had our filters or gso change.
 */
export async function cleanInterface(
  host: RouterHost,
  helper: string,
  st: IfaceState,
  present: LinkInfo | undefined,
  changes: string[],
): Promise<void> {
  for (const p of st.progs) {
    if (p.hasLink) {
      await detachTcx(host, helper, `${p.dir}/link`);
      changes.push(`${st.ifname}: detached TCX link of ${p.object}`);
    }
  }
  const sameDevice = present && (st.ifindex === undefined || st.ifindex === present.ifindex);
  if (present && sameDevice) {
    await deleteOwnedFilters(host, st.ifname, changes);
    if (st.gsoOriginal !== undefined) {
      await runChecked(host, ['ip', 'link', 'set', 'dev', st.ifname, 'gso_max_segs', String(st.gsoOriginal)]);
      changes.push(`${st.ifname}: restored gso_max_segs ${st.gsoOriginal}`);
    }
    if (st.clsactOurs) await deleteClsactIfEmpty(host, st.ifname, changes);
  }
  await removePins(host, helper, st.dir);
  changes.push(`${st.ifname}: removed ${st.dir}`);
}
