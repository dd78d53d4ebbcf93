import { Link } from '../../app/navigation.js';
import type { Column } from '../../components/DataTable.js';
import { ManagedMark, type Managed } from '../../components/ManagedMark.js';
import {
  percent,
  policyName,
  profileTarget,
  selectorWords,
  shortSha,
  soakWords,
  windowWords,
  type AssignmentSpec,
  type FirmwarePolicySpec,
  type RolloutPolicySpec,
} from './intent-format.js';

/** One resource as GET /v1/<kind-path> lists it, its spec read as its kind's (intent-format.ts). */
export interface IntentRow<Spec> {
  name: string;
  spec: Spec;
  version: number;
  managed: Managed | null;
  updatedAt: string;
}

function nameColumn<Spec>(header: string): Column<IntentRow<Spec>> {
  return { id: 'name', header, rowHeader: true, sortValue: (r) => r.name, cell: (r) => r.name };
}

function managedColumn<Spec>(): Column<IntentRow<Spec>> {
  return {
    id: 'managed',
    header: 'Managed',
    className: 'wf-intent__managed',
    sortValue: (r) => (r.managed ? 1 : 0),
    // A dash, not a blank: the console and API alone manage it, the files do not name it.
    cell: (r) =>
      r.managed ? (
        <ManagedMark managed={r.managed} />
      ) : (
        <span className="wf-muted" title="Not in the fleet's files: managed through the console and API">
          —
        </span>
      ),
  };
}

const policyColumn = <Spec extends { rolloutPolicy?: string }>(): Column<IntentRow<Spec>> => ({
  id: 'policy',
  header: 'Rollout policy',
  sortValue: (r) => policyName(r.spec.rolloutPolicy),
  cell: (r) =>
    r.spec.rolloutPolicy ? r.spec.rolloutPolicy : <span className="wf-muted">{policyName(undefined)}</span>,
});

export const ASSIGNMENT_COLUMNS: Column<IntentRow<AssignmentSpec>>[] = [
  nameColumn('Assignment'),
  { id: 'selector', header: 'Routers', cell: (r) => selectorWords(r.spec.selector) },
  {
    id: 'profile',
    header: 'Profile',
    sortValue: (r) => profileTarget(r.spec),
    cell: (r) => <Link to={`/profiles?profile=${encodeURIComponent(r.spec.profile)}`}>{profileTarget(r.spec)}</Link>,
  },
  policyColumn(),
  managedColumn(),
];

export const ROLLOUT_POLICY_COLUMNS: Column<IntentRow<RolloutPolicySpec>>[] = [
  nameColumn('Rollout policy'),
  { id: 'canary', header: 'Canary', sortValue: (r) => r.spec.canary, cell: (r) => r.spec.canary },
  { id: 'batch', header: 'Batch size', sortValue: (r) => r.spec.batchSize, cell: (r) => r.spec.batchSize },
  {
    id: 'failures',
    header: 'Max failures',
    sortValue: (r) => r.spec.maxFailureRatio,
    cell: (r) => percent(r.spec.maxFailureRatio),
  },
  { id: 'soak', header: 'Soak', sortValue: (r) => r.spec.soakSeconds, cell: (r) => soakWords(r.spec.soakSeconds) },
  { id: 'window', header: 'Window', cell: (r) => windowWords(r.spec.window) },
  managedColumn(),
];

export const FIRMWARE_POLICY_COLUMNS: Column<IntentRow<FirmwarePolicySpec>>[] = [
  nameColumn('Firmware policy'),
  { id: 'selector', header: 'Routers', cell: (r) => selectorWords(r.spec.selector) },
  {
    id: 'image',
    header: 'Image',
    sortValue: (r) => r.spec.image,
    cell: (r) => (
      <code className="wf-intent__sha" title={r.spec.image}>
        {shortSha(r.spec.image)}
      </code>
    ),
  },
  policyColumn(),
  managedColumn(),
];
