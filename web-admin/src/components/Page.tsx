import { useEffect, useId, type ReactNode } from 'react';
import { useSession } from '../app/session.js';

/** A console page: its title (also the window's), actions beside it, then the content. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const { session } = useSession();
  const headingId = useId();
  useEffect(() => {
    document.title = `${title} · ${session?.fleetName ?? 'wrtfleet'}`;
  }, [title, session?.fleetName]);
  return (
    <section className="wf-page" aria-labelledby={headingId}>
      <header className="wf-page__header">
        <h1 id={headingId}>{title}</h1>
        {actions ? <div className="wf-page__actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}
