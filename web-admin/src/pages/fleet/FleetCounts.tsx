import type { RouterCounts } from './fleet-types.js';

const ITEMS: [keyof RouterCounts, string][] = [
  ['total', 'Routers'],
  ['online', 'Online'],
  ['offline', 'Offline'],
  ['drifted', 'Drifted'],
  ['failed', 'Failed'],
  ['pending', 'Pending'],
];

/** The counts over the current filter, at the top of the page (a list, not a table: the page's one table is the fleet). */
export function FleetCounts({ counts }: { counts: RouterCounts | undefined }) {
  return (
    <ul className="wf-fleet-counts" aria-label="Counts of the routers that match">
      {ITEMS.map(([key, label]) => (
        <li key={key} className={`wf-fleet-count wf-fleet-count--${key}`}>
          <span className="wf-fleet-count__value" data-count={key}>
            {counts ? counts[key] : '–'}
          </span>
          <span className="wf-fleet-count__label">{label}</span>
        </li>
      ))}
    </ul>
  );
}
