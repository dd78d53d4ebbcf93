import { describe, expect, it } from 'vitest';
import {
  bulkTarget,
  isSelected,
  NOTHING,
  pageState,
  selectAllMatching,
  selectedCount,
  toggle,
  togglePage,
} from '../../../web-admin/src/pages/fleet/fleet-selection.js';

const page = ['a', 'b', 'c'];

describe("the fleet table's selection", () => {
  it('ticks and unticks single rows, and says how the page stands', () => {
    let s = toggle(NOTHING, 'a', page);
    expect(isSelected(s, 'a')).toBe(true);
    expect(pageState(s, page)).toBe('some');
    s = toggle(s, 'a', page);
    expect(selectedCount(s)).toBe(0);
    expect(pageState(s, page)).toBe('none');
  });

  it('the header box selects the page, keeps other pages, and clears the page when all are ticked', () => {
    const other = toggle(NOTHING, 'z', ['z']);
    const all = togglePage(other, page);
    expect(pageState(all, page)).toBe('all');
    expect(selectedCount(all)).toBe(4);
    const cleared = togglePage(all, page);
    expect(bulkTarget(cleared)).toEqual({ ids: ['z'] });
  });

  it('"all that match" counts the matches, targets the filter, and unticking one keeps the rest of the page', () => {
    const s = selectAllMatching({ soc: 'MT7621' }, 1234);
    expect(selectedCount(s)).toBe(1234);
    expect(isSelected(s, 'anything')).toBe(true);
    expect(bulkTarget(s)).toEqual({ filter: { soc: 'MT7621' } });
    const narrowed = toggle(s, 'b', page);
    expect(bulkTarget(narrowed)).toEqual({ ids: ['a', 'c'] });
    expect(togglePage(s, page)).toEqual(NOTHING);
  });
});
