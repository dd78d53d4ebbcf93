import { useState } from 'react';
import { Link } from '../../app/navigation.js';
import { DiffView } from '../../components/DiffView.js';
import { diffStats, jsonDiffRows } from '../../diff/json-line-diff.js';
import { auditTargetOf } from './audit-target.js';
import type { AuditEvent } from './audit-types.js';

/** The event's subject by name, whole (it wraps), linked where it has a page of its own. */
function Target({ event }: { event: AuditEvent }) {
  const target = auditTargetOf(event);
  if (!event.targetId) return <span className="wf-muted wf-audit-event__target">{target.label}</span>;
  return target.path ? (
    <Link to={target.path} title={target.title} className="wf-audit-event__target">
      {target.label}
    </Link>
  ) : (
    <span title={target.title} className="wf-audit-event__target">
      {target.label}
    </span>
  );
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
