import { describe, expect, it } from 'vitest';
import {
  alertViewOf,
  describeSilence,
  formatSeconds,
  silenceRequest,
  silenceRouterIds,
  silenceScopes,
  subjectHref,
  type SilenceChoices,
} from '../../../web-admin/src/pages/alerts/alert-format.js';

const NOW = Date.parse('2026-12-07T10:00:00Z');
const routerAlert = {
  rule: { name: 'router-offline', kind: 'router_offline' as const },
  subject: { kind: 'router', id: 'r-1', name: 'edge-1' },
};
const rolloutAlert = {
  rule: { name: 'rollout-paused', kind: 'rollout_paused' as const },
  subject: { kind: 'rollout', id: 'ro-1', name: 'rollout ro-1' },
};
const choices = (patch: Partial<SilenceChoices>): SilenceChoices => ({
  scope: 'both',
  duration: '1h',
  customEnd: '',
  comment: 'maintenance',
  ...patch,
});

describe('the alerts page', () => {
  it('links a router or a rollout subject to its page, nothing else', () => {
    expect(subjectHref({ kind: 'router', id: 'a b', name: 'x' })).toBe('/routers/a%20b');
    expect(subjectHref({ kind: 'rollout', id: 'ro-1', name: 'x' })).toBe('/rollouts/ro-1');
    expect(subjectHref({ kind: 'audit', id: 'chain', name: 'audit chain' })).toBeNull();
    expect(subjectHref({ kind: 'replica', id: 'db', name: 'database' })).toBeNull();
  });

  it('reads its view from the URL, active by default', () => {
    expect(alertViewOf(null)).toBe('active');
    expect(alertViewOf('resolved')).toBe('resolved');
    expect(alertViewOf('all')).toBe('all');
    expect(alertViewOf('bogus')).toBe('active');
  });

  it('writes a rule\u2019s `for` as an operator reads it', () => {
    expect([0, 30, 60, 90, 300, 3_600, 5_400, 86_400, 90_000].map(formatSeconds)).toEqual([
      '0s',
      '30s',
      '1m',
      '90s',
      '5m',
      '1h',
      '1h 30m',
      '1d',
      '1d 1h',
    ]);
  });
});

describe('a silence from the dialog', () => {
  it('names the router by id, the rule by name, or both', () => {
    const ends = '2026-12-07T11:00:00.000Z';
    expect(silenceRequest(routerAlert, choices({ scope: 'both' }), NOW)).toEqual({
      ok: true,
      body: { rule: 'router-offline', selector: { ids: ['r-1'] }, comment: 'maintenance', endsAt: ends },
    });
    expect(silenceRequest(routerAlert, choices({ scope: 'router' }), NOW)).toEqual({
      ok: true,
      body: { selector: { ids: ['r-1'] }, comment: 'maintenance', endsAt: ends },
    });
    expect(silenceRequest(routerAlert, choices({ scope: 'rule' }), NOW)).toEqual({
      ok: true,
      body: { rule: 'router-offline', comment: 'maintenance', endsAt: ends },
    });
  });

  it('silences an alert that is not a router\u2019s by its rule only', () => {
    expect(silenceScopes(rolloutAlert)).toEqual(['rule']);
    expect(silenceScopes(routerAlert)).toEqual(['both', 'router', 'rule']);
    const request = silenceRequest(rolloutAlert, choices({ scope: 'both' }), NOW);
    expect(request).toMatchObject({ ok: true, body: { rule: 'rollout-paused' } });
    expect(request.ok && request.body.selector).toBeUndefined();
  });

  it('lasts 1, 4 or 24 hours, or until a chosen end in the future', () => {
    const end = (patch: Partial<SilenceChoices>) => {
      const r = silenceRequest(routerAlert, choices(patch), NOW);
      return r.ok ? Date.parse(r.body.endsAt) - NOW : r.errors;
    };
    expect(end({ duration: '4h' })).toBe(4 * 3_600_000);
    expect(end({ duration: '24h' })).toBe(24 * 3_600_000);
    const local = new Date(NOW + 90 * 60_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    const value = `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}T${pad(local.getHours())}:${pad(local.getMinutes())}`;
    expect(end({ duration: 'custom', customEnd: value })).toBe(90 * 60_000);
    expect(end({ duration: 'custom', customEnd: '' })).toEqual({ customEnd: 'Choose when the silence ends.' });
    expect(end({ duration: 'custom', customEnd: '2020-01-01T00:00' })).toEqual({
      customEnd: 'The end must be in the future.',
    });
  });

  it('needs a comment', () => {
    expect(silenceRequest(routerAlert, choices({ comment: '   ' }), NOW)).toEqual({
      ok: false,
      errors: { comment: 'Say why: the silence is listed with its comment.' },
    });
    const trimmed = silenceRequest(routerAlert, choices({ comment: '  why  ' }), NOW);
    expect(trimmed.ok && trimmed.body.comment).toBe('why');
  });

  it('names the routers of an ids selector, none of any other', () => {
    expect(silenceRouterIds({ ids: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(silenceRouterIds({ tags: ['site:ams'] })).toEqual([]);
    expect(silenceRouterIds(null)).toEqual([]);
  });

  it('reads back in words, with router names where known', () => {
    const names = new Map([['r-1', 'edge-1']]);
    expect(describeSilence({ rule: 'router-offline', selector: { ids: ['r-1'] } }, names)).toBe(
      'rule router-offline, router edge-1',
    );
    expect(describeSilence({ rule: null, selector: { ids: ['r-9'] } }, names)).toBe('every rule, router r-9');
    expect(describeSilence({ rule: null, selector: { ids: ['a', 'b'], tags: ['site:ams'] } })).toBe(
      'every rule, 2 routers by id, tagged site:ams',
    );
    expect(describeSilence({ rule: 'audit-chain-broken', selector: null })).toBe(
      'rule audit-chain-broken, every subject',
    );
  });
});
