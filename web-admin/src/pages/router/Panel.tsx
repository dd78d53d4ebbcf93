import { useId, type ReactNode } from 'react';

/** One titled section of the router page; `wide` spans the whole grid. */
export function Panel({
  title,
  children,
  wide,
  actions,
}: {
  title: string;
  children: ReactNode;
  wide?: boolean;
  actions?: ReactNode;
}) {
  const id = useId();
  return (
    <section className={`wf-panel${wide ? ' wf-panel--wide' : ''}`} aria-labelledby={id}>
      <header className="wf-panel__header">
        <h2 id={id}>{title}</h2>
        {actions ? <div className="wf-panel__actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** A term and its value in a definition list; a missing value shows as "unknown", never blank. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  const empty = children === null || children === undefined || children === '';
  return (
    <div className="wf-facts__row">
      <dt>{term}</dt>
      <dd>{empty ? <span className="wf-muted">unknown</span> : children}</dd>
    </div>
  );
}
