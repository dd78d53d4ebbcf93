import type { ReactNode } from 'react';
import { AlertsNavBadge } from './AlertsNavBadge.js';
import { Link, useLocation } from './navigation.js';
import { NAV } from './routes.js';
import { useSession } from './session.js';
import { isWithin } from './route-match.js';

/** The frame of every signed-in page: the fleet's name, who is signed in, the navigation, then the page. */
export function Shell({ section, children }: { section: string | null; children: ReactNode }) {
  const { session, signOut } = useSession();
  const { pathname } = useLocation();
  const current = section ?? pathname;
  return (
    <div className="wf-shell">
      <a className="wf-skip" href="#main">
        Skip to content
      </a>
      <header className="wf-topbar">
        <Link to="/fleet" className="wf-brand">
          <span className="wf-brand__mark" aria-hidden="true" />
          <span className="wf-brand__name">{session?.fleetName ?? 'wrtfleet'}</span>
        </Link>
        <div className="wf-user">
          <span className="wf-user__name" title={session?.actor}>
            {session?.name}
          </span>
          {session?.role ? <span className={`wf-badge wf-badge--${session.role}`}>{session.role}</span> : null}
          <button type="button" className="wf-button wf-button--small" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="wf-nav" aria-label="Console">
        <ul>
          {NAV.map((entry) => (
            <li key={entry.href}>
              <Link to={entry.href} aria-current={isWithin(current, entry.href) ? 'page' : undefined}>
                {entry.label}
                {entry.badge === 'alerts' ? <AlertsNavBadge /> : null}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="wf-main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
