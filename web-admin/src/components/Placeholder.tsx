import type { ReactNode } from 'react';

/** What a page that is still being built shows under its title. */
export function Placeholder({ children }: { children: ReactNode }) {
  return <div className="wf-placeholder">{children}</div>;
}
