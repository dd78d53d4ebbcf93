import { Field } from '../../components/Field.js';
import type { SelectorFields, SelectorResult } from './selector-fields.js';

/** The selector's fields (SoC, release, tags, ids, or every router), with the field the check names marked. */
export function SelectorInputs({
  fields,
  onChange,
  check,
}: {
  fields: SelectorFields;
  onChange(next: SelectorFields): void;
  check: SelectorResult;
}) {
  const error = (field: keyof SelectorFields | 'selector') =>
    !check.ok && check.field === field ? check.message : null;
  const set = (patch: Partial<SelectorFields>) => onChange({ ...fields, ...patch });
  return (
    <fieldset className="wf-selector">
      <legend>Routers</legend>
      <div className="wf-selector__grid">
        <Field label="SoC" hint="e.g. MT7621, MT7986" error={error('soc')}>
          <input value={fields.soc} onChange={(e) => set({ soc: e.target.value })} disabled={fields.all} />
        </Field>
        <Field label="OpenWrt release" hint="23.05 matches 23.05.x" error={error('release')}>
          <input value={fields.release} onChange={(e) => set({ release: e.target.value })} disabled={fields.all} />
        </Field>
        <Field label="Tags (all of)" error={error('tags')}>
          <input value={fields.tags} onChange={(e) => set({ tags: e.target.value })} disabled={fields.all} />
        </Field>
        <Field label="Router ids" error={error('ids')}>
          <input value={fields.ids} onChange={(e) => set({ ids: e.target.value })} disabled={fields.all} />
        </Field>
      </div>
      <label className="wf-check">
        <input type="checkbox" checked={fields.all} onChange={(e) => set({ all: e.target.checked })} /> Every router
      </label>
      {error('all') ? <p className="wf-field__error">{error('all')}</p> : null}
      {error('selector') ? <p className="wf-field__error">{error('selector')}</p> : null}
    </fieldset>
  );
}
