import { useMemo, useState, type FormEvent } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import type { Managed } from '../../components/ManagedMark.js';
import { ManagedNotice } from './ManagedNotice.js';
import type { JsonSchema } from './schema-check.js';
import { fillDefaults, specText } from './spec-defaults.js';
import { formBlocker, withoutValue, withValue } from './spec-form.js';
import { SpecAsSaved } from './SpecAsSaved.js';
import { SpecEditor } from './SpecEditor.js';
import { SpecForm } from './SpecForm.js';
import { validate as checkSpec } from './spec-validator.generated.js';
import { readSpec, serverProblems, type SpecProblem, type SpecReading } from './spec-problems.js';

const NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** What a new profile starts from: the fields an operator most often sets, the rest default. */
export const NEW_SPEC_TEXT = `{
  "l3Rewrite": {
    "ttl": { "enabled": true, "value": 64 },
    "ebpf": "auto"
  },
  "flowOffload": { "mode": "auto" },
  "conflictPolicy": "prefer-rewrite"
}
`;

/**
 * What the switches and the spec as saved can show of the text: the spec as saved needs a JSON
 * object, the switches also need every enclosing value of their fields to be an object.
 */
function formState(reading: SpecReading, schema: JsonSchema | null) {
  const parsed = reading.ok ? { value: reading.spec } : reading.parsed;
  const why = parsed === null ? null : formBlocker(parsed.value);
  const blocked =
    parsed === null
      ? `The JSON does not parse (${reading.ok ? '' : (reading.problems[0]?.message ?? '')}): fix it to use the switches.`
      : why && `The switches cannot edit this spec: ${why}.`;
  const objectSpec = parsed !== null && isJsonObject(parsed.value);
  const saved = schema && parsed && objectSpec ? fillDefaults(schema, parsed.value) : null;
  const savedUnavailable =
    schema === null
      ? 'The published schema is not loaded: the defaults the controller fills in cannot be shown.'
      : parsed === null
        ? 'Shown again once the JSON parses.'
        : 'The spec is not a JSON object.';
  return { parsed, blocked, filled: blocked === null ? saved : null, saved, savedUnavailable };
}

const isJsonObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Edits a spec and saves it as a new revision (PUT /v1/profiles/:name with the revision the
 * edit started from; someone else's newer revision is a 409 with its message). Checked as
 * the operator types against the published schema (compiled into the console by ajv); the
 * controller's answer is shown too.
 * The JSON text is the one source of the edit: the switches read it and write into it, and
 * the spec as saved (defaults filled in from the schema) is derived from it.
 */
export function ProfileEditorPanel({
  name,
  baseRevision,
  initialText,
  schema,
  managed = null,
  onSaved,
}: {
  /** null for a new profile: the operator names it. */
  name: string | null;
  baseRevision: number;
  initialText: string;
  schema: JsonSchema | null;
  /** Set when the fleet's files manage this profile: saving stays possible, the notice says what it means. */
  managed?: Managed | null;
  onSaved(name: string, revision: number, changed: boolean): void;
}) {
  const { api, can } = useSignedIn();
  const [text, setText] = useState(initialText);
  const [newName, setNewName] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const reading = useMemo(() => readSpec(text, checkSpec), [text]);
  const save = useApiMutation(
    ({ target, spec }: { target: string; spec: unknown }) =>
      unwrap(
        api.PUT('/v1/profiles/{name}', {
          params: { path: { name: target } },
          body: { spec: spec as never, baseRevision },
        }),
      ),
    {
      invalidates: [queryKeys.profiles],
      onSuccess: (result) => {
        setNotice(
          result.changed ? `Saved revision ${result.revision}.` : `No change: revision ${result.revision} is the same.`,
        );
        onSaved(result.name, result.revision, result.changed);
      },
    },
  );
  // The controller's refusal, placed on the lines of the text it names.
  const failure = save.failure;
  const answered: SpecProblem[] = useMemo(
    () => (failure ? serverProblems(failure.details, reading.lines) : []),
    [failure, reading.lines],
  );
  const problems = reading.ok ? answered : reading.problems;
  const { parsed, blocked, filled, saved, savedUnavailable } = useMemo(
    () => formState(reading, schema),
    [reading, schema],
  );
  const nameError =
    name === null && newName !== '' && !NAME.test(newName)
      ? 'lower-case letters, digits, ".", "_" and "-", starting with a letter or digit'
      : null;
  const writable = can('write');

  const edit = (next: string) => {
    setText(next);
    save.reset();
    setNotice(null);
  };
  const editDocument = (change: (document: unknown) => unknown) => {
    if (parsed && blocked === null) edit(specText(change(parsed.value)));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const target = name ?? newName;
    if (!reading.ok || !NAME.test(target)) return;
    setNotice(null);
    save.run({ target, spec: reading.spec });
  };

  return (
    <form
      className="wf-panel wf-form wf-profile-editor"
      onSubmit={submit}
      noValidate
      aria-labelledby="spec-editor-title"
    >
      <h2 id="spec-editor-title">{name === null ? 'New profile' : `Edit ${name}`}</h2>
      {name === null ? (
        <Field label="Profile name" error={nameError} hint="e.g. mt7621-hw">
          <input value={newName} onChange={(e) => setNewName(e.target.value)} autoComplete="off" />
        </Field>
      ) : (
        <p className="wf-muted">
          Editing from revision {baseRevision}; saving adds revision {baseRevision + 1}.
        </p>
      )}
      {managed ? <ManagedNotice managed={managed} /> : null}
      <div className="wf-spec-editing">
        <SpecForm
          schema={schema}
          filled={filled}
          blocked={schema === null ? null : blocked}
          readOnly={!writable}
          onSet={(pointer, value) => editDocument((d) => withValue(d, pointer, value))}
          onUseDefault={(pointer) => editDocument((d) => withoutValue(d, pointer))}
        />
        <div className="wf-spec-editing__text">
          <SpecEditor label="Spec (JSON)" text={text} onText={edit} problems={problems} readOnly={!writable} />
        </div>
        <SpecAsSaved filled={saved} unavailable={savedUnavailable} />
      </div>
      {schema === null ? (
        <p className="wf-muted">The published schema is not loaded: the switches cannot be used.</p>
      ) : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      {notice ? (
        <p className="wf-notice" role="status">
          {notice}
        </p>
      ) : null}
      {writable ? (
        <div className="wf-form__actions">
          <button
            type="submit"
            className="wf-button wf-button--primary"
            disabled={save.pending || !reading.ok || (name === null && !NAME.test(newName))}
          >
            {name === null ? 'Create profile' : 'Save revision'}
          </button>
          {text !== initialText ? (
            <button type="button" className="wf-button" onClick={() => setText(initialText)}>
              Discard changes
            </button>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}
