import { useId, useState } from 'react';
import type { JsonSchema } from './schema-check.js';
import type { SpecWithDefaults } from './spec-defaults.js';
import {
  describeValue,
  fieldModel,
  OTHER_FIELDS,
  REWRITE_PROGRAMS,
  valueAt,
  type FieldModel,
  type SpecFieldDef,
} from './spec-form.js';

interface FieldState {
  /** The value the spec will have: typed, or its default. */
  value: unknown;
  /** The value is not in the text: the controller fills it in from the schema's default. */
  fromDefault: boolean;
}

interface Editing {
  /** The form shows a document (not while the text is one it cannot edit). */
  shown: boolean;
  state(pointer: string): FieldState;
  set(pointer: string, value: unknown): void;
  useDefault(pointer: string): void;
}

/**
 * Explicit switches for the spec beside its JSON: one per rewrite program with its settings,
 * then offloading, conflict, confirm and drift. Each shows the value the spec will be saved
 * with, and says when that value is a default rather than typed. `filled` is null when the
 * text is not a document the form can edit; the form is then disabled and `blocked` says why.
 */
export function SpecForm({
  schema,
  filled,
  blocked,
  readOnly,
  onSet,
  onUseDefault,
}: {
  schema: JsonSchema | null;
  filled: SpecWithDefaults | null;
  blocked: string | null;
  readOnly: boolean;
  onSet(pointer: string, value: unknown): void;
  onUseDefault(pointer: string): void;
}) {
  const editing: Editing = {
    shown: filled !== null,
    state: (pointer) => ({
      value: filled ? valueAt(filled.spec, pointer) : undefined,
      fromDefault: filled?.defaulted.has(pointer) ?? false,
    }),
    set: onSet,
    useDefault: onUseDefault,
  };
  const blockedId = useId();
  const disabled = readOnly || blocked !== null || filled === null || schema === null;
  return (
    <fieldset className="wf-spec-form" disabled={disabled} aria-describedby={blocked ? blockedId : undefined}>
      <legend>Switches</legend>
      {blocked ? (
        <p className="wf-spec-form__blocked" id={blockedId} role="status">
          {blocked}
        </p>
      ) : null}
      <ul className="wf-spec-form__programs" aria-label="Rewrite programs">
        {REWRITE_PROGRAMS.map((p) => {
          const model = schema ? fieldModel(schema, p.enabled) : null;
          const on = editing.state(p.enabled);
          return (
            <li key={p.program} className="wf-program" data-on={on.value === true ? 'true' : 'false'}>
              <div className="wf-program__head">
                <SwitchControl label={p.program} code pointer={p.enabled} editing={editing} model={model} />
              </div>
              {model?.description ? <p className="wf-program__about">{model.description}</p> : null}
              {p.settings.length > 0 ? (
                <div className="wf-program__settings">
                  {p.settings.map((s) => (
                    <Setting key={s.pointer} field={s} schema={schema} editing={editing} />
                  ))}
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
      <div className="wf-spec-form__others">
        {OTHER_FIELDS.map((f) => (
          <Setting key={f.pointer} field={f} schema={schema} editing={editing} />
        ))}
      </div>
    </fieldset>
  );
}

/** "default" beside a value the text leaves out; beside a typed value unlike its default, a way back to it. */
function DefaultMark({
  pointer,
  label,
  model,
  editing,
}: {
  pointer: string;
  label: string;
  model: FieldModel | null;
  editing: Editing;
}) {
  const { value, fromDefault } = editing.state(pointer);
  if (!editing.shown) return null;
  if (fromDefault) {
    return (
      <span className="wf-badge wf-badge--default" title="Not in the JSON: the schema's default fills it in">
        default
      </span>
    );
  }
  // Offered only where the typed value differs: one equal to its default changes nothing when taken out.
  if (model?.default === undefined || value === model.default) return null;
  return (
    <button
      type="button"
      className="wf-button wf-button--link wf-button--small"
      onClick={() => editing.useDefault(pointer)}
    >
      use default ({describeValue(model.default)})<span className="wf-visually-hidden"> for {label}</span>
    </button>
  );
}

function SwitchControl({
  label,
  code,
  pointer,
  editing,
  model,
}: {
  label: string;
  code?: boolean;
  pointer: string;
  editing: Editing;
  model: FieldModel | null;
}) {
  const { value } = editing.state(pointer);
  return (
    <span className="wf-switch-field">
      <label className="wf-switch-field__label">
        <input
          type="checkbox"
          role="switch"
          className="wf-switch"
          checked={value === true}
          data-pointer={pointer}
          onChange={(e) => editing.set(pointer, e.target.checked)}
        />
        {code ? <code>{label}</code> : label}
      </label>
      <DefaultMark pointer={pointer} label={label} model={model} editing={editing} />
    </span>
  );
}

function Setting({ field, schema, editing }: { field: SpecFieldDef; schema: JsonSchema | null; editing: Editing }) {
  const model = schema ? fieldModel(schema, field.pointer) : null;
  if (model?.kind === 'switch') {
    return (
      <div className="wf-setting">
        <SwitchControl label={field.label} pointer={field.pointer} editing={editing} model={model} />
      </div>
    );
  }
  return <ValueSetting field={field} model={model} editing={editing} />;
}

/** A number or a choice, labelled, with its bounds or choices from the schema. */
function ValueSetting({ field, model, editing }: { field: SpecFieldDef; model: FieldModel | null; editing: Editing }) {
  const id = useId();
  const { value } = editing.state(field.pointer);
  const shown = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  // A number being typed ("", "-") is kept here until it is an integer the spec can hold.
  const [draft, setDraft] = useState(shown);
  const [drafted, setDrafted] = useState(shown);
  if (drafted !== shown) {
    setDrafted(shown);
    setDraft(shown);
  }
  const hint =
    model?.kind === 'integer' && model.min !== undefined && model.max !== undefined
      ? `${model.min}-${model.max}`
      : undefined;
  return (
    <div className="wf-setting wf-field">
      <span className="wf-setting__label">
        <label htmlFor={id}>{field.label}</label>
        <DefaultMark pointer={field.pointer} label={field.label} model={model} editing={editing} />
      </span>
      {model?.kind === 'choice' ? (
        <select
          id={id}
          value={shown}
          data-pointer={field.pointer}
          onChange={(e) => editing.set(field.pointer, e.target.value)}
        >
          {model.choices.includes(shown) ? null : (
            <option value={shown}>{shown === '' ? '' : `${shown} (not allowed)`}</option>
          )}
          {model.choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type="number"
          inputMode="numeric"
          value={draft}
          min={model?.kind === 'integer' ? model.min : undefined}
          max={model?.kind === 'integer' ? model.max : undefined}
          step={1}
          data-pointer={field.pointer}
          aria-describedby={hint ? `${id}-hint` : undefined}
          onChange={(e) => {
            setDraft(e.target.value);
            if (/^-?\d+$/.test(e.target.value.trim())) editing.set(field.pointer, Number(e.target.value));
          }}
        />
      )}
      {hint ? (
        <p className="wf-field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}
