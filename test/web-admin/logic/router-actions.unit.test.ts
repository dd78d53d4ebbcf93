import { describe, expect, it } from 'vitest';
import { grants } from '../../../web-admin/src/app/scopes.js';
import { actionsFor, ROUTER_ACTIONS } from '../../../web-admin/src/pages/router/router-actions.js';

const as = (scopes: string[]) => (needed: Parameters<typeof grants>[1]) => grants(scopes, needed);

describe("the router page's actions", () => {
  it('shows none to read-only callers, the write commands to writers, everything to admins', () => {
    expect(actionsFor(as(['read']), false)).toEqual([]);
    expect(actionsFor(as(['write']), false).map((a) => a.id)).toEqual([
      'check_drift',
      'reprobe',
      'reapply',
      'rollback',
    ]);
    expect(actionsFor(as(['admin']), false).map((a) => a.id)).toEqual(ROUTER_ACTIONS.map((a) => a.id));
  });

  it('offers only re-enrolment on a decommissioned router', () => {
    const [only, ...rest] = actionsFor(as(['admin']), true);
    expect(rest).toEqual([]);
    expect(only?.id).toBe('re_enroll');
    // Re-enrolment brings a decommissioned router back: "Rotate credentials" would hide that.
    expect(only?.label).toBe('Bring back (re-enroll)');
    expect(only?.explain).toMatch(/back in the fleet/);
    expect(actionsFor(as(['write']), true)).toEqual([]);
  });

  it('asks the admin scope for what the controller reserves to admins (detach, decommission, re-enrol)', () => {
    const admin = ROUTER_ACTIONS.filter((a) => a.scope === 'admin').map((a) => a.id);
    expect(admin).toEqual(['detach', 're_enroll', 'decommission']);
    for (const a of ROUTER_ACTIONS) expect(a.explain.length).toBeGreaterThan(20);
  });
});
