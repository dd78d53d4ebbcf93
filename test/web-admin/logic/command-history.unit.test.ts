import { describe, expect, it } from 'vitest';
import {
  describeTargets,
  oneOf,
  outcomeCounts,
  outcomeText,
  pageSizeOf,
  spoken,
  TARGET_STATES,
} from '../../../web-admin/src/pages/commands/command-history.js';
import { TARGET_STATES as API_TARGET_STATES } from '../../../server/commands/command-kinds.js';

describe('the command history pages', () => {
  it('knows every router state the API has (and only those)', () => {
    expect([...TARGET_STATES].sort()).toEqual([...API_TARGET_STATES].sort());
  });

  it('says a job’s outcomes in reading order, leaving out the empty ones', () => {
    const counts = { queued: 0, sent: 0, succeeded: 11, failed: 1, offline: 0, timed_out: 2, cancelled: 0, refused: 0 };
    expect(outcomeCounts(counts)).toEqual([
      ['succeeded', 11],
      ['failed', 1],
      ['timed_out', 2],
    ]);
    expect(outcomeText(counts)).toBe('11 succeeded · 1 failed · 2 timed out');
    expect(outcomeText({ succeeded: 0 })).toBe('no router');
    expect(spoken('check_drift')).toBe('check drift');
  });

  it('takes a page size and filters from a link only within bounds', () => {
    expect(pageSizeOf('5', 50, 500)).toBe(5);
    for (const bad of [null, '', '0', '501', '-1', '1e3', 'abc']) expect(pageSizeOf(bad, 50, 500)).toBe(50);
    expect(oneOf(['running', 'completed'] as const, 'running')).toBe('running');
    expect(oneOf(['running', 'completed'] as const, 'sideways')).toBeUndefined();
    expect(oneOf(['running'] as const, null)).toBeUndefined();
  });

  it('describes what a command targeted', () => {
    expect(describeTargets({ ids: ['a'] }, 1)).toBe('1 router');
    expect(describeTargets({ all: true }, 12)).toBe('all routers (12)');
    expect(describeTargets({ soc: ['MT7621'], tags: ['site:lyon'] }, 4)).toBe(
      '4 routers (soc: MT7621; tags: site:lyon)',
    );
    expect(describeTargets(null, 0)).toBe('0 routers');
  });
});
