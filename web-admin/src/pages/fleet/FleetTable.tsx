import { useEffect, useRef } from 'react';
import { Link } from '../../app/navigation.js';
import { pathFor } from '../../app/route-match.js';
import { DEFAULT_SORT, type FleetView, type SortColumn } from './fleet-query.js';
import { isSelected, pageState, type Selection } from './fleet-selection.js';
import type { RouterRow } from './fleet-types.js';

interface FleetTableProps {
  rows: RouterRow[];
  view: FleetView;
  selection: Selection;
  /** Without the write scope there is nothing to select for. */
  selectable: boolean;
  onSort(column: SortColumn): void;
  onToggle(id: string): void;
  onTogglePage(): void;
}

const revision = (r: { profile: string; revision: number } | null) => (r ? `${r.profile}@${r.revision}` : '—');

function lastSeen(at: string | null): string {
  if (!at) return '—';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(at)) / 1000));
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

const CAPABILITY_NAMES = [
  ['hardwareOffload', 'HW offload'],
  ['softwareOffload', 'SW offload'],
  ['ebpf', 'eBPF'],
  ['tcx', 'TCX'],
] as const;

/**
 * What a router can do: each capability it has, marked when only predicted (its probe has not
 * confirmed it); one the probe refuted is struck through, so a wrong prediction shows.
 */
function Capabilities({ router }: { router: RouterRow }) {
  const shown = CAPABILITY_NAMES.flatMap(([key, label]) => {
    const { predicted, probed } = router[key];
    if (probed === true) return [{ key, label, kind: 'probed', title: `${label}: probed` }];
    if (probed === false && predicted === true)
      return [{ key, label, kind: 'refuted', title: `${label}: predicted, but the probe found it missing` }];
    if (probed === null && predicted === true)
      return [{ key, label, kind: 'predicted', title: `${label}: predicted, not probed yet` }];
    return [];
  });
  if (!shown.length) return <>—</>;
  return (
    <>
      {shown.map((c) => (
        <span key={c.key} className={`wf-fleet-ability wf-fleet-ability--${c.kind}`} title={c.title}>
          {c.kind === 'refuted' ? <del>{c.label}</del> : c.label}
          {c.kind === 'predicted' ? <span className="wf-visually-hidden"> (predicted)</span> : null}
          {c.kind === 'refuted' ? <span className="wf-visually-hidden"> (probe found it missing)</span> : null}
        </span>
      ))}
    </>
  );
}

const DATAPATH_WORDS: Record<string, string> = {
  tcx: 'eBPF · TCX',
  cls_bpf: 'eBPF · cls_bpf',
  nftables: 'nftables',
  iptables: 'iptables',
  none: 'none',
};

function SortHeader({
  column,
  label,
  view,
  onSort,
}: {
  column: SortColumn;
  label: string;
  view: FleetView;
  onSort(c: SortColumn): void;
}) {
  const sort = view.sort ?? DEFAULT_SORT;
  const current = sort.column === column ? sort : undefined;
  return (
    <th scope="col" aria-sort={current ? (current.descending ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="wf-fleet-sort" onClick={() => onSort(column)}>
        {label}
        <span aria-hidden="true">{current ? (current.descending ? ' ▼' : ' ▲') : ' ↕'}</span>
      </button>
    </th>
  );
}

function PageCheckbox({ state, onChange }: { state: 'all' | 'some' | 'none'; onChange(): void }) {
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (box.current) box.current.indeterminate = state === 'some';
  }, [state]);
  return (
    <input
      ref={box}
      type="checkbox"
      aria-label="Select the routers on this page"
      checked={state === 'all'}
      onChange={onChange}
    />
  );
}

/** The fleet table: sortable headers, a checkbox per row when there is something to do with a selection. */
export function FleetTable({ rows, view, selection, selectable, onSort, onToggle, onTogglePage }: FleetTableProps) {
  const ids = rows.map((r) => r.id);
  return (
    <div className="wf-table-wrap wf-fleet-frame" tabIndex={0} role="region" aria-label="Routers table">
      <table className="wf-table">
        <caption className="wf-visually-hidden">Routers</caption>
        <thead>
          <tr>
            {selectable ? (
              <th scope="col" className="wf-fleet-check">
                <PageCheckbox state={pageState(selection, ids)} onChange={onTogglePage} />
              </th>
            ) : null}
            <SortHeader column="name" label="Name" view={view} onSort={onSort} />
            <SortHeader column="status" label="Status" view={view} onSort={onSort} />
            <SortHeader column="soc" label="SoC" view={view} onSort={onSort} />
            <SortHeader column="model" label="Model" view={view} onSort={onSort} />
            <SortHeader column="release" label="OpenWrt" view={view} onSort={onSort} />
            <th scope="col">Applied</th>
            <th scope="col">Desired</th>
            <th scope="col">Last apply</th>
            <th scope="col">Drift</th>
            <th scope="col">Can</th>
            <th scope="col">Datapath</th>
            <th scope="col">Offload</th>
            <th scope="col">Tags</th>
            <SortHeader column="lastSeen" label="Last seen" view={view} onSort={onSort} />
          </tr>
        </thead>
        <tbody>
          {rows.map((router) => {
            const pending =
              router.desiredRevision && revision(router.desiredRevision) !== revision(router.appliedRevision);
            return (
              <tr key={router.id} aria-selected={selectable ? isSelected(selection, router.id) : undefined}>
                {selectable ? (
                  <td className="wf-fleet-check">
                    <input
                      type="checkbox"
                      aria-label={`Select ${router.name}`}
                      checked={isSelected(selection, router.id)}
                      onChange={() => onToggle(router.id)}
                    />
                  </td>
                ) : null}
                <td>
                  <Link to={pathFor('/routers/:id', { id: router.id })}>{router.name}</Link>
                  {router.decommissionedAt ? (
                    <span className="wf-status wf-status--decommissioned" title={router.decommissionedAt}>
                      decommissioned
                    </span>
                  ) : null}
                </td>
                <td>
                  <span className={`wf-status wf-status--${router.status}`}>{router.status.replace('_', ' ')}</span>
                </td>
                <td>{router.soc ?? '—'}</td>
                <td>{router.model ?? '—'}</td>
                <td>{router.openwrt?.release ?? '—'}</td>
                <td>{revision(router.appliedRevision)}</td>
                <td>
                  {pending ? (
                    <span className="wf-status wf-status--pending">{revision(router.desiredRevision)}</span>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  {router.lastApplyStatus ? (
                    <span className={`wf-status wf-status--${router.lastApplyStatus}`}>
                      {router.lastApplyStatus.replace('_', ' ')}
                    </span>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  {router.drifted === null ? (
                    '—'
                  ) : router.drifted ? (
                    <span className="wf-status wf-status--drifted">drifted</span>
                  ) : (
                    'none'
                  )}
                </td>
                <td className="wf-fleet-abilities">
                  <Capabilities router={router} />
                </td>
                <td>{router.datapath ? DATAPATH_WORDS[router.datapath] : '—'}</td>
                <td>{router.offload ?? '—'}</td>
                <td className="wf-fleet-tags">
                  {router.tags.length
                    ? router.tags.map((t) => (
                        <span key={t} className="wf-fleet-tag">
                          {t}
                        </span>
                      ))
                    : '—'}
                </td>
                <td>
                  <time dateTime={router.lastSeenAt ?? undefined} title={router.lastSeenAt ?? undefined}>
                    {lastSeen(router.lastSeenAt)}
                  </time>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 ? <p className="wf-fleet-empty">No router matches these filters.</p> : null}
    </div>
  );
}
