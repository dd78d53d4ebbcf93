import { useState } from 'react';
import { Link } from '../../app/navigation.js';
import { pathFor } from '../../app/route-match.js';
import { DiffView } from '../../components/DiffView.js';
import { diffStats, jsonDiffRows } from '../../diff/json-line-diff.js';
import type { AuditEvent } from './audit-types.js';

/** Where an event's subject has a page of its own, a link to it. */
function Target({ event }: { event: AuditEvent }) {
  if (!event.targetId) return <span className="wf-muted">{event.targetType}</span>;
  const label = `${event.targetType} ${event.targetId.length > 12 ? `${event.targetId.slice(0, 8)}…` : event.targetId}`;
  if (event.targetType === 'router')
    return (
      <Link to={pathFor('/routers/:id', { id: event.targetId })} title={event.targetId}>
        {label}
      </Link>
    );
  if (event.targetType === 'rollout')
    return (
      <Link to={pathFor('/rollouts/:id', { id: event.targetId })} title={event.targetId}>
        {label}
      </Link>
    );
  return <span title={event.targetId}>{label}</span>;
}

/** One event of the timeline; its before/after opens as a diff. */
export function AuditEventRow({ event }: { event: AuditEvent }) {
  const [open, setOpen] = useState(false);
  const rows = open ? jsonDiffRows(event.before, event.after) : [];
  const stats = diffStats(rows);
  const hasChange = event.before !== null || event.after !== null;
  const diffId = `audit-diff-${event.seq}`;
  return (
    <li className="wf-audit-event" data-seq={event.seq}>
      <div className="wf-audit-event__head">
        <time dateTime={event.at} className="wf-audit-event__time">
          {new Date(event.at).toLocaleString()}
        </time>
        <code className="wf-audit-event__action">{event.action}</code>
        <span className="wf-audit-event__actor">{event.actor}</span>
        <Target event={event} />
        <span className="wf-muted">#{event.seq}</span>
        {hasChange ? (
          <button
            type="button"
            className="wf-button wf-button--small"
            aria-expanded={open}
            aria-controls={diffId}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? 'Hide diff' : 'Show diff'}
          </button>
        ) : null}
      </div>
      {open ? (
        <div id={diffId} className="wf-audit-event__diff">
          <p className="wf-muted">
            {event.before === null ? 'created' : event.after === null ? 'removed' : 'changed'}: +{stats.added} −
            {stats.removed} lines{event.requestId ? ` · request ${event.requestId}` : ''}
          </p>
          <DiffView rows={rows} caption={`Before and after of event ${event.seq}`} />
        </div>
      ) : null}
    </li>
  );
}
