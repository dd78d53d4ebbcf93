import { managedOrigin, type Managed } from '../../components/ManagedMark.js';

/**
 * Above a file-managed profile's editor: saving here is allowed (an urgent fix cannot wait for a
 * commit), but it is drift from the files, and the next apply undoes it. Said before the save,
 * not discovered in the next plan.
 */
export function ManagedNotice({ managed }: { managed: Managed }) {
  return (
    <p className="wf-notice wf-notice--managed" data-testid="managed-notice">
      <strong>Managed from files</strong> ({managedOrigin(managed)}). A change saved here shows as drift in the next{' '}
      <code>wrtfleet plan</code> and the next <code>wrtfleet apply</code> puts the files’ version back.
    </p>
  );
}
