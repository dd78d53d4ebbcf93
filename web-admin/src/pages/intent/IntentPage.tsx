import type { ReactNode } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiQuery, type Loaded } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { Page } from '../../components/Page.js';
import {
  ASSIGNMENT_COLUMNS,
  FIRMWARE_POLICY_COLUMNS,
  ROLLOUT_POLICY_COLUMNS,
  type IntentRow,
} from './intent-columns.js';
import type { AssignmentSpec, FirmwarePolicySpec, RolloutPolicySpec } from './intent-format.js';
import '../profiles/panels.css';
import './intent.css';

/** How to write one: every kind is created by applying the fleet's files, not in the console. */
function HowToCreate({ what, kind }: { what: string; kind: string }) {
  return (
    <p className="wf-muted wf-intent__empty">
      No {what} yet. Write <code>kind: {kind}</code> documents in the fleet’s files and run{' '}
      <code>wrtfleet apply -f DIR</code> (see docs/FLEET-AS-CODE.md).
    </p>
  );
}

function IntentSection<Spec>({
  id,
  title,
  list,
  columns,
  empty,
}: {
  id: string;
  title: string;
  list: Loaded<{ items: IntentRow<Spec>[] }>;
  columns: readonly Column<IntentRow<Spec>>[];
  empty: ReactNode;
}) {
  return (
    <section className="wf-panel" aria-labelledby={`${id}-title`} data-testid={`intent-${id}`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <DataTable
        rows={list.data?.items ?? []}
        columns={columns}
        rowKey={(r) => r.name}
        caption={title}
        region={`${title} table`}
        empty={empty}
        failure={list.failure}
        onRetry={list.retry}
        loading={list.loading}
        loadingWhat={`Loading ${title.toLowerCase()}`}
      />
    </section>
  );
}

/**
 * The read-only cast here: each list's `spec` is typed loosely by the API (one view schema for
 * three kinds) but is the kind's stored form; intent-format.ts says why that holds.
 */
const rowsOf = <Spec,>(body: { items: { spec: unknown }[] }) => body as { items: IntentRow<Spec>[] };

/**
 * Fleet intent: what the fleet's files (and the API) say the routers should run — assignments
 * of profiles, firmware policies, and the rollout policies their rollouts follow — each with the
 * mark of the apply that wrote it. Read-only: the files are changed and applied with the CLI.
 */
export default function IntentPage(_props: PageProps) {
  const { api } = useSignedIn();
  const assignments = useApiQuery(queryKeys.intentList('assignments'), async () =>
    rowsOf<AssignmentSpec>(await unwrap(api.GET('/v1/assignments'))),
  );
  const policies = useApiQuery(queryKeys.intentList('rollout-policies'), async () =>
    rowsOf<RolloutPolicySpec>(await unwrap(api.GET('/v1/rollout-policies'))),
  );
  const firmware = useApiQuery(queryKeys.intentList('firmware-policies'), async () =>
    rowsOf<FirmwarePolicySpec>(await unwrap(api.GET('/v1/firmware-policies'))),
  );
  return (
    <Page title="Fleet intent">
      <p className="wf-muted wf-intent__intro">
        What the fleet should run, as the fleet’s files last applied it (and any change made through the API since).
        Change it in the files: <code>wrtfleet plan -f DIR</code> shows what an apply would do,{' '}
        <code>wrtfleet apply -f DIR</code> does it.
      </p>
      <IntentSection
        id="assignments"
        title="Assignments"
        list={assignments}
        columns={ASSIGNMENT_COLUMNS}
        empty={<HowToCreate what="assignment" kind="Assignment" />}
      />
      <IntentSection
        id="rollout-policies"
        title="Rollout policies"
        list={policies}
        columns={ROLLOUT_POLICY_COLUMNS}
        empty={<HowToCreate what="rollout policy" kind="RolloutPolicy" />}
      />
      <IntentSection
        id="firmware-policies"
        title="Firmware policies"
        list={firmware}
        columns={FIRMWARE_POLICY_COLUMNS}
        empty={<HowToCreate what="firmware policy" kind="FirmwarePolicy" />}
      />
    </Page>
  );
}
