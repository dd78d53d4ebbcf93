import { describe, expect, it } from 'vitest';
import {
  describeSelector,
  EMPTY_SELECTOR_FIELDS,
  fieldsFromSelector,
  parseSelectorParam,
  selectorFromFields,
} from '../../../web-admin/src/pages/rollouts/selector-fields.js';

describe('selectors as the operator types them and as links carry them', () => {
  it('turns comma- or space-separated fields into a selector, deduplicated', () => {
    expect(selectorFromFields({ ...EMPTY_SELECTOR_FIELDS, soc: 'MT7621, MT7986 MT7621', tags: 'site:lyon' })).toEqual({
      ok: true,
      selector: { soc: ['MT7621', 'MT7986'], tags: ['site:lyon'] },
    });
    expect(selectorFromFields({ ...EMPTY_SELECTOR_FIELDS, all: true })).toEqual({ ok: true, selector: { all: true } });
  });

  it('refuses an empty selector, "all" with criteria, and a bad release, naming the field', () => {
    expect(selectorFromFields(EMPTY_SELECTOR_FIELDS)).toMatchObject({ ok: false, field: 'selector' });
    expect(selectorFromFields({ ...EMPTY_SELECTOR_FIELDS, all: true, soc: 'MT7621' })).toMatchObject({
      ok: false,
      field: 'all',
    });
    expect(selectorFromFields({ ...EMPTY_SELECTOR_FIELDS, release: '23.05 snap$hot' })).toEqual({
      ok: false,
      field: 'release',
      message: '"snap$hot" is not an OpenWrt release (e.g. 23.05 or 23.05.3)',
    });
    expect(selectorFromFields({ ...EMPTY_SELECTOR_FIELDS, soc: 'x'.repeat(65) })).toMatchObject({
      ok: false,
      field: 'soc',
    });
  });

  it("reads a link's selector parameter, refusing anything the controller would", () => {
    expect(parseSelectorParam(null)).toBeNull();
    expect(parseSelectorParam('')).toBeNull();
    const sel = { soc: ['MT7621'], ids: ['r1', 'r2'] };
    expect(parseSelectorParam(JSON.stringify(sel))).toEqual({ ok: true, selector: sel });
    // A link made before 0.2 spells the release `openwrt`.
    expect(parseSelectorParam('{"openwrt":["23.05"]}')).toEqual({ ok: true, selector: { release: ['23.05'] } });
    expect(parseSelectorParam(decodeURIComponent(encodeURIComponent('{"all":true}')))).toEqual({
      ok: true,
      selector: { all: true },
    });
    expect(parseSelectorParam('{soc')).toMatchObject({ ok: false, message: "the link's selector is not JSON" });
    expect(parseSelectorParam('[1]')).toMatchObject({ ok: false, message: "the link's selector is not an object" });
    expect(parseSelectorParam('{"model":["x"]}')).toMatchObject({
      ok: false,
      message: expect.stringContaining('"model"'),
    });
    expect(parseSelectorParam('{"soc":"MT7621"}')).toMatchObject({ ok: false, field: 'soc' });
    expect(parseSelectorParam('{"soc":[]}')).toMatchObject({ ok: false, field: 'soc' });
    expect(parseSelectorParam('{"all":false}')).toMatchObject({ ok: false, field: 'all' });
    expect(parseSelectorParam('{}')).toMatchObject({ ok: false, field: 'selector' });
  });

  it('round-trips through the fields and describes itself', () => {
    const sel = { soc: ['MT7621'], release: ['23.05'], tags: ['a', 'b'] };
    expect(selectorFromFields(fieldsFromSelector(sel))).toEqual({ ok: true, selector: sel });
    expect(describeSelector(sel)).toBe('SoC MT7621, OpenWrt 23.05, tagged a and b');
    expect(describeSelector({ all: true })).toBe('every router');
    expect(describeSelector({ ids: ['r1'] })).toBe('router r1');
  });
});
