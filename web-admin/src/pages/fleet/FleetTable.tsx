import { Link } from '../../app/navigation.js';
import { DataTable, type Column } from '../../components/DataTable.js';
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

const sortable = (column: SortColumn, header: string, value: (r: RouterRow) => string | null): Column<RouterRow> => ({
  id: column,
  header,
  cell: (r) => value(r) ?? '—',
  // Sorted on the server (keyset pages): the value only marks the column sortable.
  sortValue: value,
});

const COLUMNS: Column<RouterRow>[] = [
  {
    id: 'name',
    header: 'Name',
    sortValue: (r) => r.name,
    cell: (router) => (
      <>
        <Link to={pathFor('/routers/:id', { id: router.id })}>{router.name}</Link>
        {router.decommissionedAt ? (
          <span className="wf-status wf-status--decommissioned" title={router.decommissionedAt}>
            decommissioned
          </span>
        ) : null}
      </>
    ),
  },
  {
    id: 'status',
    header: 'Status',
    sortValue: (r) => r.status,
    cell: (router) => (
      <span className={`wf-status wf-status--${router.status}`}>{router.status.replace('_', ' ')}</span>
    ),
  },
  sortable('soc', 'SoC', (r) => r.soc),
  sortable('model', 'Model', (r) => r.model),
  sortable('release', 'Release', (r) => r.openwrt?.release ?? null),
  { id: 'applied', header: 'Applied', cell: (r) => revision(r.appliedRevision) },
  {
    id: 'desired',
    header: 'Desired',
    cell: (router) =>
      router.desiredRevision && revision(router.desiredRevision) !== revision(router.appliedRevision) ? (
        <span className="wf-status wf-status--pending">{revision(router.desiredRevision)}</span>
      ) : (
        '—'
      ),
  },
  {
    id: 'last-apply',
    header: 'Last apply',
    cell: (router) =>
      router.lastApplyStatus ? (
        <span className={`wf-status wf-status--${router.lastApplyStatus}`}>
          {router.lastApplyStatus.replace('_', ' ')}
        </span>
      ) : (
        '—'
      ),
  },
  {
    id: 'drift',
    header: 'Drift',
    cell: (router) =>
      router.drifted === null ? (
        '—'
      ) : router.drifted ? (
        <span className="wf-status wf-status--drifted">drifted</span>
      ) : (
        'none'
      ),
  },
  { id: 'can', header: 'Can', className: 'wf-fleet-abilities', cell: (router) => <Capabilities router={router} /> },
  { id: 'datapath', header: 'Datapath', cell: (r) => (r.datapath ? DATAPATH_WORDS[r.datapath] : '—') },
  { id: 'offload', header: 'Offload', cell: (r) => r.offload ?? '—' },
  {
    id: 'tags',
    header: 'Tags',
    className: 'wf-fleet-tags',
    cell: (router) =>
      router.tags.length
        ? router.tags.map((t) => (
            <span key={t} className="wf-fleet-tag">
              {t}
            </span>
          ))
        : '—',
  },
  {
    id: 'lastSeen',
    header: 'Last seen',
    sortValue: (r) => r.lastSeenAt,
    cell: (router) => (
      <time dateTime={router.lastSeenAt ?? undefined} title={router.lastSeenAt ?? undefined}>
        {lastSeen(router.lastSeenAt)}
      </time>
    ),
  },
];

const routerKey = (r: RouterRow) => r.id;

/** The fleet table: server-sorted headers, a checkbox per row when there is something to do with a selection. */
export function FleetTable({ rows, view, selection, selectable, onSort, onToggle, onTogglePage }: FleetTableProps) {
  const ids = rows.map((r) => r.id);
  return (
    <DataTable
      rows={rows}
      columns={COLUMNS}
      rowKey={routerKey}
      caption="Routers"
      region="Routers table"
      wrapClassName="wf-fleet-frame"
      sort={view.sort ?? DEFAULT_SORT}
      onSort={(column) => onSort(column as SortColumn)}
      selection={
        selectable
          ? {
              isSelected: (r) => isSelected(selection, r.id),
              onToggle: (r) => onToggle(r.id),
              pageState: pageState(selection, ids),
              onTogglePage,
              rowLabel: (r) => `Select ${r.name}`,
              pageLabel: 'Select the routers on this page',
            }
          : undefined
      }
      empty={<p className="wf-fleet-empty">No router matches these filters.</p>}
    />
  );
}
