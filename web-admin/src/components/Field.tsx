import { cloneElement, useId, type ReactElement } from 'react';

interface FieldProps {
  label: string;
  /** One input, select or textarea; it gets the id, aria-describedby and aria-invalid. */
  children: ReactElement<Record<string, unknown>>;
  hint?: string;
  error?: string | null;
}

/** A labelled form control with its hint and its error, wired for screen readers. */
export function Field({ label, children, hint, error }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`wf-field${error ? ' wf-field--invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {hint ? (
        <p className="wf-field__hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="wf-field__error" id={errorId}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
