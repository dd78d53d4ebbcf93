/**
 * A router selector (POST /v1/rollouts, /v1/plan-preview) as the operator types it: comma-
 * separated SoCs, OpenWrt releases, tags and ids, or "every router"; and as a link carries it
 * (`?selector=<JSON>` from the Fleet page). Checked here with the controller's rules, so the
 * form says what is wrong before anything is sent.
 */

export interface Selector {
  ids?: string[];
  soc?: string[];
  release?: string[];
  tags?: string[];
  all?: true;
}

export interface SelectorFields {
  soc: string;
  release: string;
  tags: string;
  ids: string;
  all: boolean;
}

export const EMPTY_SELECTOR_FIELDS: SelectorFields = { soc: '', release: '', tags: '', ids: '', all: false };

const LIST_KEYS = ['ids', 'soc', 'release', 'tags'] as const;
type ListKey = (typeof LIST_KEYS)[number];
const MAX_ITEMS: Record<ListKey, number> = { ids: 10_000, soc: 64, release: 64, tags: 32 };
const RELEASE_PATTERN = /^[0-9A-Za-z.-]{1,32}$/;

export type SelectorResult =
  { ok: true; selector: Selector } | { ok: false; field: keyof SelectorFields | 'selector'; message: string };

function splitList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,\s]+/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

function checkList(key: ListKey, items: string[]): string | null {
  if (items.length > MAX_ITEMS[key]) return `at most ${MAX_ITEMS[key]} values`;
  for (const item of items) {
    if (item.length > 64) return `"${item.slice(0, 20)}…" is longer than 64 characters`;
    if (key === 'release' && !RELEASE_PATTERN.test(item))
      return `"${item}" is not an OpenWrt release (e.g. 23.05 or 23.05.3)`;
  }
  return null;
}

/** The selector the fields describe, or the first field that is wrong and why. */
export function selectorFromFields(fields: SelectorFields): SelectorResult {
  const selector: Selector = {};
  for (const key of LIST_KEYS) {
    const items = splitList(fields[key]);
    if (items.length === 0) continue;
    const problem = checkList(key, items);
    if (problem) return { ok: false, field: key, message: problem };
    selector[key] = items;
  }
  const criteria = LIST_KEYS.filter((k) => selector[k]);
  if (fields.all) {
    if (criteria.length > 0)
      return { ok: false, field: 'all', message: '"every router" cannot be combined with other criteria' };
    return { ok: true, selector: { all: true } };
  }
  if (criteria.length === 0)
    return { ok: false, field: 'selector', message: 'name a SoC, release, tag or router id, or choose every router' };
  return { ok: true, selector };
}

export function fieldsFromSelector(selector: Selector): SelectorFields {
  return {
    soc: (selector.soc ?? []).join(', '),
    release: (selector.release ?? []).join(', '),
    tags: (selector.tags ?? []).join(', '),
    ids: (selector.ids ?? []).join(', '),
    all: selector.all === true,
  };
}

/**
 * A selector from a link's `selector` parameter (URL-decoded JSON). Anything that is not a
 * selector the controller would accept is refused with a sentence, never half-used.
 */
export function parseSelectorParam(raw: string | null): SelectorResult | null {
  if (raw === null || raw.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, field: 'selector', message: "the link's selector is not JSON" };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, field: 'selector', message: "the link's selector is not an object" };
  const object = value as Record<string, unknown>;
  const fields: SelectorFields = { ...EMPTY_SELECTOR_FIELDS };
  for (const [given, v] of Object.entries(object)) {
    // `openwrt` is how links made before 0.2 spell the release.
    const key = given === 'openwrt' ? 'release' : given;
    if (key === 'all') {
      if (v !== true) return { ok: false, field: 'all', message: '"all" must be true' };
      fields.all = true;
      continue;
    }
    if (!(LIST_KEYS as readonly string[]).includes(key))
      return { ok: false, field: 'selector', message: `the link's selector has an unknown criterion "${key}"` };
    if (!Array.isArray(v) || v.length === 0 || !v.every((s) => typeof s === 'string' && s.length > 0))
      return { ok: false, field: key as ListKey, message: `"${key}" must be a list of names` };
    fields[key as ListKey] = v.join(', ');
  }
  return selectorFromFields(fields);
}

/** A short sentence for a selector, for lists and confirmations. */
export function describeSelector(selector: Selector): string {
  if (selector.all) return 'every router';
  const parts: string[] = [];
  if (selector.soc) parts.push(`SoC ${selector.soc.join(' or ')}`);
  if (selector.release) parts.push(`OpenWrt ${selector.release.join(' or ')}`);
  if (selector.tags) parts.push(`tagged ${selector.tags.join(' and ')}`);
  if (selector.ids)
    parts.push(selector.ids.length === 1 ? `router ${selector.ids[0]}` : `${selector.ids.length} routers by id`);
  return parts.join(', ') || 'nothing';
}
