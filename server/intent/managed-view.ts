/** Who last wrote a resource from files, and at which of its versions. */
export interface Managed {
  version: number;
  source: string | null;
  appliedBy: string;
  appliedAt: string;
}

/** A ManagedResource row as every view shows it (a leaf module: profiles import it too). */
export function managedView(m: {
  version: number;
  source: string | null;
  appliedBy: string;
  appliedAt: Date;
}): Managed {
  return { version: m.version, source: m.source, appliedBy: m.appliedBy, appliedAt: m.appliedAt.toISOString() };
}
