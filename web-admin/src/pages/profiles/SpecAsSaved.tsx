import { useId } from 'react';
import { linesWithDefaults, type SpecWithDefaults } from './spec-defaults.js';

/**
 * The spec as saving it will store it and routers will apply it: every default filled in,
 * each line whose value the text left out marked "default". Read-only; the text and the
 * switches are where it is edited.
 */
export function SpecAsSaved({ filled, unavailable }: { filled: SpecWithDefaults | null; unavailable: string | null }) {
  const id = useId();
  const lines = filled ? linesWithDefaults(filled) : [];
  const count = lines.filter((l) => l.defaulted).length;
  return (
    <section className="wf-saved-spec" aria-labelledby={id}>
      <h3 id={id}>As saved, defaults filled in</h3>
      {filled ? (
        <>
          <p className="wf-muted wf-saved-spec__summary">
            {count === 0
              ? 'Every value is in the JSON.'
              : `${count} value${count === 1 ? '' : 's'} not in the JSON will be saved with ${count === 1 ? 'its' : 'their'} default.`}
          </p>
          <ol className="wf-saved-spec__lines" aria-label="Spec as saved">
            {lines.map((line, i) => (
              <li
                key={i}
                data-pointer={line.pointer ?? undefined}
                data-default={line.defaulted ? 'true' : undefined}
                className={line.defaulted ? 'wf-saved-spec__line wf-saved-spec__line--default' : 'wf-saved-spec__line'}
              >
                <code>{line.text}</code>
                {line.defaulted ? <span className="wf-badge wf-badge--default">default</span> : null}
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p className="wf-muted">{unavailable}</p>
      )}
    </section>
  );
}
