import { useMemo, useState } from 'react';
import { Field } from '../../components/Field.js';
import { sideBySide } from '../../diff/diff-side-by-side.js';
import { diffStats, textDiff } from '../../diff/json-line-diff.js';

export interface RevisionText {
  revision: number;
  createdBy: string;
  createdAt: string;
  text: string;
}

const lines = (n: number) => `${n} ${n === 1 ? 'line' : 'lines'}`;

/** Two revisions side by side, any two the operator picks; removed lines left, added right. */
export function RevisionDiff({ revisions }: { revisions: readonly RevisionText[] }) {
  const newest = revisions[0]?.revision ?? 0;
  const [left, setLeft] = useState(revisions[1]?.revision ?? newest);
  const [right, setRight] = useState(newest);
  const a = revisions.find((r) => r.revision === left);
  const b = revisions.find((r) => r.revision === right);
  const diff = useMemo(() => textDiff(a?.text ?? '', b?.text ?? ''), [a, b]);
  const rows = useMemo(() => sideBySide(diff), [diff]);
  const summary = diffStats(diff);
  const options = revisions.map((r) => (
    <option key={r.revision} value={r.revision}>
      revision {r.revision} · {r.createdBy} · {new Date(r.createdAt).toLocaleString()}
    </option>
  ));
  return (
    <section className="wf-panel" aria-labelledby="revision-diff-title">
      <h2 id="revision-diff-title">Revisions</h2>
      <div className="wf-inline-fields">
        <Field label="From">
          <select value={left} onChange={(e) => setLeft(Number(e.target.value))}>
            {options}
          </select>
        </Field>
        <Field label="To">
          <select value={right} onChange={(e) => setRight(Number(e.target.value))}>
            {options}
          </select>
        </Field>
      </div>
      <p className="wf-muted" role="status">
        {left === right
          ? 'The same revision on both sides.'
          : summary.removed + summary.added === 0
            ? `Revisions ${left} and ${right} are identical.`
            : `${lines(summary.removed)} removed, ${summary.added} added from revision ${left} to ${right}.`}
      </p>
      <div className="wf-table-wrap">
        <table className="wf-table wf-diff" aria-label={`Diff of revision ${left} and revision ${right}`}>
          <thead>
            <tr>
              <th scope="col" className="wf-diff__num">
                #
              </th>
              <th scope="col">Revision {left}</th>
              <th scope="col" className="wf-diff__num">
                #
              </th>
              <th scope="col">Revision {right}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i} className={`wf-diff__row wf-diff__row--${row.kind}`} data-kind={row.kind}>
                <td className="wf-diff__num">{row.left?.number ?? ''}</td>
                <td className="wf-diff__left">
                  {row.left ? (
                    <span className="wf-visually-hidden">{row.kind === 'same' ? '' : 'removed: '}</span>
                  ) : null}
                  <code>{row.left?.text ?? ''}</code>
                </td>
                <td className="wf-diff__num">{row.right?.number ?? ''}</td>
                <td className="wf-diff__right">
                  {row.right ? (
                    <span className="wf-visually-hidden">{row.kind === 'same' ? '' : 'added: '}</span>
                  ) : null}
                  <code>{row.right?.text ?? ''}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
