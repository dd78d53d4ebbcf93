import { Panel } from './Panel.js';
import { capabilityRows } from './live-state.js';

function Verdict({ value }: { value: { value: boolean; reason: string } | null }) {
  if (!value) return <span className="wf-muted">not known</span>;
  return (
    <>
      <span className={`wf-status wf-status--${value.value ? 'online' : 'offline'}`}>{value.value ? 'yes' : 'no'}</span>{' '}
      <span className="wf-reason">{value.reason}</span>
    </>
  );
}

/** Each capability as the table predicted it and as the router's probe found it, with the reasons. */
export function CapabilitiesPanel({ capabilities }: { capabilities: unknown }) {
  const rows = capabilityRows(capabilities);
  return (
    <Panel title="Capabilities" wide>
      <div className="wf-table-wrap">
        <table className="wf-table wf-table--wrap">
          <caption className="wf-visually-hidden">Capabilities, predicted and probed, with reasons</caption>
          <thead>
            <tr>
              <th scope="col">Capability</th>
              <th scope="col">Predicted</th>
              <th scope="col">Probed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">
                  {row.label}
                  {row.disagrees ? <span className="wf-note"> (the probe wins)</span> : null}
                </th>
                <td>
                  <Verdict value={row.predicted} />
                </td>
                <td>
                  <Verdict value={row.probed} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}
