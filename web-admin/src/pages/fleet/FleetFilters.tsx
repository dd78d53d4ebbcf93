import { useEffect, useState } from 'react';
import { Field } from '../../components/Field.js';
import {
  activeFilterCount,
  APPLY_RESULTS,
  DRIFT_STATES,
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

/** A text filter that applies itself a moment after typing stops (no Apply button to find). */
function TextFilter(props: {
  label: string;
  value: string | undefined;
  placeholder?: string;
  onChange(v: string): void;
}) {
  const [text, setText] = useState(props.value ?? '');
  useEffect(() => setText(props.value ?? ''), [props.value]);
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
  onChange(v: string | undefined): void;
}) {
  return (
    <Field label={props.label}>
      <select value={props.value ?? ''} onChange={(e) => props.onChange(e.target.value || undefined)}>
        <option value="">Any</option>
        {props.choices.map((c) => (
          <option key={c} value={c}>
            {LABELS[c] ?? c}
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
        <TextFilter
          label="Tags"
          value={filter.tag?.join(',')}
          placeholder="site:ams,group:canary"
          onChange={(t) =>
            onChange({
              tag: t
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean),
            })
          }
        />
        {active > 0 ? (
          <button
            type="button"
            className="wf-button wf-button--link"
            onClick={() =>
              onChange({
                q: undefined,
                status: undefined,
                soc: undefined,
                model: undefined,
                release: undefined,
                placement: undefined,
                revisionState: undefined,
                drift: undefined,
                applyResult: undefined,
                tag: undefined,
              })
            }
          >
            Clear filters ({active})
          </button>
        ) : null}
      </form>
    </details>
  );
}

export const filterLabel = (value: string) => LABELS[value] ?? value;
