import { DataTable, type Column } from '../../components/DataTable.js';
import { Panel } from './Panel.js';
import { capabilityRows, type CapabilityRow } from './live-state.js';

function Verdict({ value }: { value: { value: boolean; reason: string } | null }) {
  if (!value) return <span className="wf-muted">not known</span>;
  return (
    <>
      <span className={`wf-status wf-status--${value.value ? 'online' : 'offline'}`}>{value.value ? 'yes' : 'no'}</span>{' '}
      <span className="wf-reason">{value.reason}</span>
    </>
  );
}

const COLUMNS: Column<CapabilityRow>[] = [
  {
    id: 'capability',
    header: 'Capability',
    rowHeader: true,
    cell: (row) => (
      <>
        {row.label}
        {row.disagrees ? <span className="wf-note"> (the probe wins)</span> : null}
      </>
    ),
  },
  { id: 'predicted', header: 'Predicted', cell: (row) => <Verdict value={row.predicted} /> },
  { id: 'probed', header: 'Probed', cell: (row) => <Verdict value={row.probed} /> },
];

/** Each capability as the table predicted it and as the router's probe found it, with the reasons. */
export function CapabilitiesPanel({ capabilities }: { capabilities: unknown }) {
  return (
    <Panel title="Capabilities" wide>
      <DataTable
        rows={capabilityRows(capabilities)}
        columns={COLUMNS}
        rowKey={(row) => row.key}
        caption="Capabilities, predicted and probed, with reasons"
        className="wf-table--wrap"
        empty={<p className="wf-muted">No capability known yet.</p>}
      />
    </Panel>
  );
}
