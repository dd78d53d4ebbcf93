import { useEffect, useState } from 'react';
import { Field } from '../../components/Field.js';
import {
  activeFilterCount,
  APPLY_RESULTS,
  CAPABILITY_STATES,
  DATAPATH_MODES,
  DECOMMISSIONED,
  DRIFT_STATES,
  OFFLOAD_MODES,
  PLACEMENTS,
  REVISION_STATES,
  STATUSES,
  type FleetFilter,
} from './fleet-query.js';

const LABELS: Record<string, string> = {
  online: 'Online',
  offline: 'Offline',
  never_seen: 'Never seen',
  on_router: 'On the router',
  proxy: 'Proxy',
  unknown: 'Unknown',
  in_sync: 'In sync',
  pending: 'Pending',
  drifted: 'Drifted',
  clean: 'No drift',
  unreported: 'Not reported',
  applied: 'Applied',
  failed: 'Failed',
  rolled_back: 'Rolled back',
  none: 'None yet',
};

/** Values whose words differ by filter ("none" is no apply result yet, or no datapath running). */
const CAPABILITY_LABELS: Record<string, string> = {
  yes: 'Yes',
  probed: 'Probed',
  predicted: 'Predicted, not probed',
  no: 'No',
  unknown: 'Not reported',
};
const MODE_LABELS: Record<string, string> = {
  tcx: 'eBPF (TCX)',
  cls_bpf: 'eBPF (cls_bpf)',
  nftables: 'nftables',
  iptables: 'iptables',
  none: 'None',
  hardware: 'Hardware',
  software: 'Software',
  off: 'Off',
  unsupported: 'Unsupported',
  unknown: 'Not reported',
};
const DECOMMISSIONED_LABELS: Record<string, string> = { include: 'Included', only: 'Only these' };

/** Every filter key, for "Clear filters". */
const CLEARED: { [K in keyof Required<FleetFilter>]: undefined } = {
  q: undefined,
  status: undefined,
  soc: undefined,
  model: undefined,
  release: undefined,
  placement: undefined,
  revisionState: undefined,
  drift: undefined,
  applyResult: undefined,
  tags: undefined,
  hardwareOffload: undefined,
  softwareOffload: undefined,
  ebpf: undefined,
  tcx: undefined,
  datapath: undefined,
  offload: undefined,
  decommissioned: undefined,
};

/** A text filter that applies itself a moment after typing stops (no Apply button to find). */
function TextFilter(props: {
  label: string;
  value: string | undefined;
  placeholder?: string;
  onChange(v: string): void;
}) {
  const [text, setText] = useState(props.value ?? '');
  // A value from outside (the URL changed) replaces what is typed, adjusted while rendering.
  const [given, setGiven] = useState(props.value);
  if (given !== props.value) {
    setGiven(props.value);
    setText(props.value ?? '');
  }
  useEffect(() => {
    if (text === (props.value ?? '')) return;
    const timer = setTimeout(() => props.onChange(text.trim()), 300);
    return () => clearTimeout(timer);
  });
  return (
    <Field label={props.label}>
      <input
        type="search"
        value={text}
        placeholder={props.placeholder}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') props.onChange(text.trim());
        }}
      />
    </Field>
  );
}

function ChoiceFilter(props: {
  label: string;
  value: string | undefined;
  choices: readonly string[];
  labels?: Record<string, string>;
  /** What no choice means (Any, or the API's default). */
  unset?: string;
  onChange(v: string | undefined): void;
}) {
  return (
    <Field label={props.label}>
      <select value={props.value ?? ''} onChange={(e) => props.onChange(e.target.value || undefined)}>
        <option value="">{props.unset ?? 'Any'}</option>
        {props.choices.map((c) => (
          <option key={c} value={c}>
            {(props.labels ?? LABELS)[c] ?? c}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The filter bar; every change goes to the URL through `onChange`. */
export function FleetFilters({
  filter,
  onChange,
}: {
  filter: FleetFilter;
  onChange(change: Partial<FleetFilter>): void;
}) {
  const active = activeFilterCount(filter);
  // On a phone the bar would push the table below the fold: folded there until asked for.
  const [open, setOpen] = useState(
    () => typeof window === 'undefined' || window.matchMedia('(min-width: 720px)').matches,
  );
  return (
    <details className="wf-fleet-filter-panel" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Filters{active ? ` (${active})` : ''}</summary>
      <form className="wf-fleet-filters" role="search" aria-label="Filter routers" onSubmit={(e) => e.preventDefault()}>
        <TextFilter label="Name" value={filter.q} placeholder="contains…" onChange={(q) => onChange({ q })} />
        <ChoiceFilter
          label="Status"
          value={filter.status}
          choices={STATUSES}
          onChange={(status) => onChange({ status: status as FleetFilter['status'] })}
        />
        <TextFilter label="SoC" value={filter.soc} placeholder="MT7621" onChange={(soc) => onChange({ soc })} />
        <TextFilter label="Model" value={filter.model} onChange={(model) => onChange({ model })} />
        <TextFilter
          label="Release"
          value={filter.release}
          placeholder="23.05"
          onChange={(release) => onChange({ release })}
        />
        <ChoiceFilter
          label="Placement"
          value={filter.placement}
          choices={PLACEMENTS}
          onChange={(placement) => onChange({ placement: placement as FleetFilter['placement'] })}
        />
        <ChoiceFilter
          label="Revision"
          value={filter.revisionState}
          choices={REVISION_STATES}
          onChange={(v) => onChange({ revisionState: v as FleetFilter['revisionState'] })}
        />
        <ChoiceFilter
          label="Drift"
          value={filter.drift}
          choices={DRIFT_STATES}
          onChange={(v) => onChange({ drift: v as FleetFilter['drift'] })}
        />
        <ChoiceFilter
          label="Last apply"
          value={filter.applyResult}
          choices={APPLY_RESULTS}
          onChange={(v) => onChange({ applyResult: v as FleetFilter['applyResult'] })}
        />
        {(
          [
            ['hardwareOffload', 'HW offload'],
            ['softwareOffload', 'SW offload'],
            ['ebpf', 'eBPF'],
            ['tcx', 'TCX'],
          ] as const
        ).map(([key, label]) => (
          <ChoiceFilter
            key={key}
            label={label}
            value={filter[key]}
            choices={CAPABILITY_STATES}
            labels={CAPABILITY_LABELS}
            onChange={(v) => onChange({ [key]: v as FleetFilter[typeof key] })}
          />
        ))}
        <ChoiceFilter
          label="Datapath"
          value={filter.datapath}
          choices={DATAPATH_MODES}
          labels={MODE_LABELS}
          onChange={(v) => onChange({ datapath: v as FleetFilter['datapath'] })}
        />
        <ChoiceFilter
          label="Offload"
          value={filter.offload}
          choices={OFFLOAD_MODES}
          labels={MODE_LABELS}
          onChange={(v) => onChange({ offload: v as FleetFilter['offload'] })}
        />
        <ChoiceFilter
          label="Decommissioned"
          value={filter.decommissioned}
          choices={DECOMMISSIONED}
          labels={DECOMMISSIONED_LABELS}
          unset="Hidden"
          onChange={(v) => onChange({ decommissioned: v as FleetFilter['decommissioned'] })}
        />
        <TextFilter
          label="Tags"
          value={filter.tags?.join(',')}
          placeholder="site:ams,group:canary"
          onChange={(t) =>
            onChange({
              tags: t
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean),
            })
          }
        />
        {active > 0 ? (
          <button type="button" className="wf-button wf-button--link" onClick={() => onChange(CLEARED)}>
            Clear filters ({active})
          </button>
        ) : null}
      </form>
    </details>
  );
}

export const filterLabel = (value: string) => LABELS[value] ?? value;
