import { outcomeCounts, spoken } from './command-history.js';

/** A job's routers by outcome, one chip per state that has any ("11 succeeded", "1 failed"). */
export function OutcomeChips({ counts }: { counts: Record<string, number> }) {
  const shown = outcomeCounts(counts);
  if (shown.length === 0) return <span className="wf-muted">no router</span>;
  return (
    <ul className="wf-outcomes" aria-label="Routers by outcome">
      {shown.map(([state, n]) => (
        <li key={state} className={`wf-status wf-status--${state}`}>
          {n} {spoken(state)}
        </li>
      ))}
    </ul>
  );
}
