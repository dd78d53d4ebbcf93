import { withContext, type DiffRow } from '../diff/json-line-diff.js';
import './diff-view.css';

/**
 * A line diff as a table (screen readers get "removed" / "added" per line, not only a colour):
 * before and after line numbers, a sign, the text. Long unchanged runs fold to "…".
 */
export function DiffView({
  rows,
  caption,
  context = 3,
}: {
  rows: readonly DiffRow[];
  caption: string;
  context?: number;
}) {
  const shown = withContext(rows, context);
  return (
    <div className="wf-diff" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="wf-visually-hidden">{caption}</caption>
        <thead className="wf-visually-hidden">
          <tr>
            <th scope="col">Before line</th>
            <th scope="col">After line</th>
            <th scope="col">Change</th>
            <th scope="col">Text</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((row, i) =>
            row === null ? (
              <tr key={i} className="wf-diff__fold">
                <td colSpan={4}>…</td>
              </tr>
            ) : (
              <tr key={i} className={`wf-diff__${row.kind}`}>
                <td className="wf-diff__num">{row.beforeLine ?? ''}</td>
                <td className="wf-diff__num">{row.afterLine ?? ''}</td>
                <td className="wf-diff__sign">
                  <span aria-hidden="true">{row.kind === 'add' ? '+' : row.kind === 'remove' ? '−' : ' '}</span>
                  <span className="wf-visually-hidden">
                    {row.kind === 'add' ? 'added' : row.kind === 'remove' ? 'removed' : 'unchanged'}
                  </span>
                </td>
                <td className="wf-diff__text">{row.text}</td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </div>
  );
}
