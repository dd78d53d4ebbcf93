import { useState, type FormEvent } from 'react';
import { Field } from '../../components/Field.js';
import {
  AUDIT_FILTER_KEYS,
  filterProblems,
  instantOf,
  localInputValue,
  type AuditFilterKey,
  type AuditFilters,
} from './audit-filters.js';

const LABELS: Record<AuditFilterKey, { label: string; hint?: string }> = {
  actor: { label: 'Actor', hint: 'e.g. token:admin, account:alice, agent:<identity>, system' },
  action: { label: 'Action', hint: 'e.g. rollout.created, drift.reported' },
  router: { label: 'Router id', hint: 'its own events, and those of the commands and rollouts that targeted it' },
  profile: { label: 'Profile name' },
  rollout: { label: 'Rollout id' },
  command: { label: 'Command id' },
  from: { label: 'From' },
  to: { label: 'To (before)' },
};

/** The timeline's filters as a form: applied on submit (to the URL), each field's problem shown at it. */
export function AuditFilterForm({ filters, onApply }: { filters: AuditFilters; onApply(next: AuditFilters): void }) {
  const [draft, setDraft] = useState<AuditFilters>(() => ({
    ...filters,
    from: localInputValue(filters.from),
    to: localInputValue(filters.to),
  }));
  const problems = filterProblems(draft);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(problems).length > 0) return;
    const next: AuditFilters = { ...draft };
    // The URL carries instants, so a shared link means the same time in every time zone.
    for (const key of ['from', 'to'] as const) if (next[key]) next[key] = instantOf(next[key]!) ?? next[key];
    onApply(next);
  };
  return (
    <form className="wf-audit-filters" onSubmit={submit} aria-label="Audit filters">
      {AUDIT_FILTER_KEYS.map((key) => (
        <Field key={key} label={LABELS[key].label} hint={LABELS[key].hint} error={problems[key] ?? null}>
          <input
            name={key}
            type={key === 'from' || key === 'to' ? 'datetime-local' : 'text'}
            value={draft[key] ?? ''}
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => setDraft((d) => ({ ...d, [key]: event.target.value }))}
          />
        </Field>
      ))}
      <div className="wf-audit-filters__actions">
        <button type="submit" className="wf-button wf-button--primary" disabled={Object.keys(problems).length > 0}>
          Apply filters
        </button>
        <button
          type="button"
          className="wf-button"
          onClick={() => {
            setDraft({});
            onApply({});
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
