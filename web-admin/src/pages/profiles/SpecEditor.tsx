import { useId, useRef } from 'react';
import type { SpecProblem } from './spec-problems.js';

/**
 * The spec's text in a plain textarea beside a line-number gutter; a line with a problem is
 * marked in the gutter, and each problem below names its line and moves the caret there. The
 * textarea grows with the text (no scroll of its own), so gutter and lines stay aligned.
 */
export function SpecEditor({
  label,
  text,
  onText,
  problems,
  readOnly,
}: {
  label: string;
  text: string;
  onText(text: string): void;
  problems: readonly SpecProblem[];
  readOnly?: boolean;
}) {
  const id = useId();
  const area = useRef<HTMLTextAreaElement>(null);
  const lineCount = text.split('\n').length;
  const bad = new Map<number, string>();
  for (const p of problems) if (!bad.has(p.line)) bad.set(p.line, p.message);

  const goTo = (line: number) => {
    const element = area.current;
    if (!element) return;
    const lines = text.split('\n');
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    element.focus();
    element.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  };

  return (
    <div className="wf-editor">
      <label htmlFor={id}>{label}</label>
      <div className={`wf-editor__frame${problems.length ? ' wf-editor__frame--invalid' : ''}`}>
        <div className="wf-editor__gutter" aria-hidden="true">
          {Array.from({ length: lineCount }, (_, i) => (
            <span
              key={i}
              data-line={i + 1}
              className={bad.has(i + 1) ? 'wf-editor__line wf-editor__line--error' : 'wf-editor__line'}
              title={bad.get(i + 1)}
            >
              {i + 1}
            </span>
          ))}
        </div>
        <textarea
          ref={area}
          id={id}
          className="wf-editor__text"
          value={text}
          onChange={(e) => onText(e.target.value)}
          rows={Math.max(12, lineCount + 1)}
          wrap="off"
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          readOnly={readOnly}
          aria-invalid={problems.length ? true : undefined}
          aria-describedby={`${id}-problems`}
        />
      </div>
      <div id={`${id}-problems`} aria-live="polite">
        {problems.length === 0 ? (
          <p className="wf-editor__ok">The spec is valid.</p>
        ) : (
          <ul className="wf-editor__problems" aria-label="Problems in the spec">
            {problems.map((p, i) => (
              <li key={i}>
                <button type="button" className="wf-button wf-button--link" onClick={() => goTo(p.line)}>
                  line {p.line}
                </button>
                : {p.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
