import { Link } from '../../app/navigation.js';
import type { Column } from '../../components/DataTable.js';
import { formatWhen as when, subjectHref } from './alert-format.js';
import { AlertActions } from './AlertActions.js';
import type { Alert } from './alert-types.js';

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 } as const;

export function SeverityBadge({ severity }: { severity: Alert['severity'] }) {
  return <span className={`wf-severity wf-severity--${severity}`}>{severity}</span>;
}

export function AlertStatusBadge({ status }: { status: Alert['status'] }) {
  return <span className={`wf-status wf-alert-status--${status}`}>{status}</span>;
}

function Subject({ subject }: { subject: Alert['subject'] }) {
  const href = subjectHref(subject);
  return (
    <>
      {href ? <Link to={href}>{subject.name}</Link> : subject.name}
      <div className="wf-muted">{subject.kind}</div>
    </>
  );
}

function Acknowledged({ ack }: { ack: Alert['acknowledged'] }) {
  if (!ack) return <>—</>;
  return (
    <>
      {ack.by}
      {ack.note ? <div className="wf-alert-note">“{ack.note}”</div> : null}
      <div className="wf-muted">{when(ack.at)}</div>
    </>
  );
}

/**
 * The alert table's columns. `router`: the router page's own table, where the subject is that
 * router and its rule says more. `canWrite`: the actions column (acknowledge, silence). `only`:
 * the table shows only unresolved (`active`) or only resolved alerts, so a column that would be
 * empty in every row is left out (Resolved for the first; Silenced until and Actions for the second).
 */
export function alertColumns({
  canWrite,
  router = false,
  only,
}: {
  canWrite: boolean;
  router?: boolean;
  only?: 'active' | 'resolved';
}): Column<Alert>[] {
  const columns: (Column<Alert> | false)[] = [
    {
      id: 'severity',
      header: 'Severity',
      sortValue: (a) => SEVERITY_ORDER[a.severity],
      cell: (a) => <SeverityBadge severity={a.severity} />,
    },
    { id: 'status', header: 'Status', sortValue: (a) => a.status, cell: (a) => <AlertStatusBadge status={a.status} /> },
    router
      ? { id: 'rule', header: 'Rule', rowHeader: true, sortValue: (a) => a.rule.name, cell: (a) => a.rule.name }
      : {
          id: 'subject',
          header: 'Subject',
          rowHeader: true,
          sortValue: (a) => a.subject.name,
          cell: (a) => <Subject subject={a.subject} />,
        },
    { id: 'summary', header: 'Summary', className: 'wf-alerts__summary', cell: (a) => a.summary },
    !router && { id: 'group', header: 'Group', sortValue: (a) => a.group, cell: (a) => a.group || '—' },
    {
      id: 'fired',
      header: 'Fired',
      className: 'wf-alerts__time',
      sortValue: (a) => a.firedAt,
      cell: (a) => when(a.firedAt),
    },
    !router &&
      only !== 'active' && {
        id: 'resolved',
        header: 'Resolved',
        className: 'wf-alerts__time',
        sortValue: (a) => a.resolvedAt ?? '',
        cell: (a) => when(a.resolvedAt),
      },
    {
      id: 'acknowledged',
      header: 'Acknowledged',
      className: 'wf-alerts__ack',
      cell: (a) => <Acknowledged ack={a.acknowledged} />,
    },
    only !== 'resolved' && {
      id: 'silenced',
      header: 'Silenced until',
      className: 'wf-alerts__time',
      sortValue: (a) => a.silence?.endsAt ?? '',
      cell: (a) => when(a.silence?.endsAt ?? null),
    },
    canWrite && only !== 'resolved' && { id: 'actions', header: 'Actions', cell: (a) => <AlertActions alert={a} /> },
  ];
  return columns.filter((c): c is Column<Alert> => c !== false);
}
