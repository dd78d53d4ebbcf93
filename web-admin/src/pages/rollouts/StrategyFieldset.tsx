import { Field } from '../../components/Field.js';
import type { StrategyCheck, StrategyFields } from './strategy-fields.js';

/** The rollout form's strategy: canary, batch size, failure threshold, soak, promotion, start time. */
export function StrategyFieldset({
  fields,
  check,
  onChange,
}: {
  fields: StrategyFields;
  check: StrategyCheck;
  onChange(patch: Partial<StrategyFields>): void;
}) {
  const error = (k: keyof StrategyFields) => (!check.ok ? (check.errors[k] ?? null) : null);
  return (
    <fieldset className="wf-selector">
      <legend>Strategy</legend>
      <div className="wf-selector__grid">
        <Field label="Canary size" hint="routers in the first batch; 0 for none" error={error('canary')}>
          <input inputMode="numeric" value={fields.canary} onChange={(e) => onChange({ canary: e.target.value })} />
        </Field>
        <Field label="Batch size" hint="routers per batch after the canary" error={error('batchSize')}>
          <input
            inputMode="numeric"
            value={fields.batchSize}
            onChange={(e) => onChange({ batchSize: e.target.value })}
          />
        </Field>
        <Field
          label="Failure threshold (%)"
          hint="pause when more fail; 0 pauses on the first"
          error={error('failurePercent')}
        >
          <input
            inputMode="decimal"
            value={fields.failurePercent}
            onChange={(e) => onChange({ failurePercent: e.target.value })}
          />
        </Field>
        <Field
          label="Soak time (s)"
          hint="wait after each batch, then check drift, applies, telemetry; 0 for none"
          error={error('soakSeconds')}
        >
          <input
            inputMode="numeric"
            value={fields.soakSeconds}
            onChange={(e) => onChange({ soakSeconds: e.target.value })}
          />
        </Field>
        <Field label="Promotion" hint="after the first batch and its checks">
          <select
            value={fields.promote}
            onChange={(e) => onChange({ promote: e.target.value === 'manual' ? 'manual' : 'auto' })}
          >
            <option value="auto">automatic</option>
            <option value="manual">wait for a promote</option>
          </select>
        </Field>
        <Field label="Start time" hint="empty starts now" error={error('startAt')}>
          <input
            type="datetime-local"
            step={1}
            value={fields.startAt}
            onChange={(e) => onChange({ startAt: e.target.value })}
          />
        </Field>
      </div>
    </fieldset>
  );
}
