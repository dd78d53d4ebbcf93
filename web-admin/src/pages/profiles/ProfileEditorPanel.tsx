import { useMemo, useState, type FormEvent } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import type { JsonSchema } from './schema-check.js';
import { SpecEditor } from './SpecEditor.js';
import { readSpec, serverProblems, type SpecProblem } from './spec-problems.js';

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
 * Edits a spec and saves it as a new revision (PUT /v1/profiles/:name with the revision the
 * edit started from; someone else's newer revision is a 409 with its message). Checked as
 * the operator types against the published schema; the controller's answer is shown too.
 */
export function ProfileEditorPanel({
  name,
  baseRevision,
  initialText,
  schema,
  onSaved,
}: {
  /** null for a new profile: the operator names it. */
  name: string | null;
  baseRevision: number;
  initialText: string;
  schema: JsonSchema | null;
  onSaved(name: string, revision: number, changed: boolean): void;
}) {
  const { api, can } = useSignedIn();
  const [text, setText] = useState(initialText);
  const [newName, setNewName] = useState('');
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [answered, setAnswered] = useState<SpecProblem[]>([]);
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const reading = useMemo(() => readSpec(text, schema), [text, schema]);
  const problems = reading.ok ? answered : reading.problems;
  const nameError =
    name === null && newName !== '' && !NAME.test(newName)
      ? 'lower-case letters, digits, ".", "_" and "-", starting with a letter or digit'
      : null;
  const writable = can('write');

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const target = name ?? newName;
    if (!reading.ok || !NAME.test(target)) return;
    setSaving(true);
    setFailure(null);
    setAnswered([]);
    setNotice(null);
    try {
      const result = await unwrap(
        api.PUT('/v1/profiles/{name}', {
          params: { path: { name: target } },
          body: { spec: reading.spec as never, baseRevision },
        }),
      );
      setNotice(
        result.changed ? `Saved revision ${result.revision}.` : `No change: revision ${result.revision} is the same.`,
      );
      onSaved(result.name, result.revision, result.changed);
    } catch (error) {
      const f = asFailure(error);
      setFailure(f);
      setAnswered(serverProblems(f.details, reading.lines));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="wf-panel wf-form" onSubmit={(e) => void save(e)} noValidate aria-labelledby="spec-editor-title">
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
      <SpecEditor
        label="Spec (JSON)"
        text={text}
        onText={(t) => {
          setText(t);
          setAnswered([]);
          setNotice(null);
        }}
        problems={problems}
        readOnly={!writable}
      />
      {schema === null ? (
        <p className="wf-muted">The published schema is not loaded: the controller checks on save.</p>
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
            disabled={saving || !reading.ok || (name === null && !NAME.test(newName))}
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
