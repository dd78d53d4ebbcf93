import './managed-mark.css';

/**
 * The mark the API puts on a resource an apply of the fleet's files wrote (`managed`, null when
 * only the console and API manage it). Profiles and the Fleet intent page show it alike, so an
 * operator recognises at a glance what the next `wrtfleet apply` would put back.
 */
export interface Managed {
  /** The version the files last wrote. */
  version: number;
  /** The commit or label the apply was given (--source), null when none was. */
  source: string | null;
  appliedBy: string;
  appliedAt: string;
}

const WHEN: Intl.DateTimeFormatOptions = { dateStyle: 'short', timeStyle: 'short' };

export function appliedWhen(managed: Managed): string {
  return new Date(managed.appliedAt).toLocaleString(undefined, WHEN);
}

/** "source git:abc123, applied 12/7/26, 3:30 AM by tester": where the files' version came from. */
export function managedOrigin(managed: Managed): string {
  const source = managed.source ? `source ${managed.source}, ` : 'no source given, ';
  return `${source}applied ${appliedWhen(managed)} by ${managed.appliedBy}`;
}

/**
 * "Managed from files" with the source and the date beside it (the full origin on hover); for
 * an unmanaged resource nothing at all, so a list reads the mark as the exception it is.
 */
export function ManagedMark({ managed }: { managed: Managed | null | undefined }) {
  if (!managed) return null;
  const date = new Date(managed.appliedAt).toLocaleDateString();
  return (
    <span className="wf-managed" title={`Managed from files: ${managedOrigin(managed)}`} data-testid="managed-mark">
      <span className="wf-badge wf-managed__badge">Managed from files</span>
      <span className="wf-managed__origin">
        {managed.source ? <code>{managed.source}</code> : null}
        {managed.source ? ' · ' : ''}
        {date}
      </span>
    </span>
  );
}
