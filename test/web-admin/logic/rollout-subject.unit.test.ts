import { describe, expect, it } from 'vitest';
import { statesShown } from '../../../web-admin/src/pages/rollouts/rollout-progress.js';
import { failedCount, rolloutSubject, succeededCount } from '../../../web-admin/src/pages/rollouts/rollout-subject.js';

describe('what a rollout carries and the states it shows', () => {
  it('names a profile revision or a firmware image', () => {
    expect(rolloutSubject({ kind: 'profile', profile: 'hw', revision: 2, firmware: null })).toBe('hw@2');
    expect(
      rolloutSubject({
        kind: 'firmware',
        profile: null,
        revision: null,
        firmware: { fileName: 'openwrt.bin', release: '23.05.5', revision: 'r24106-10cc5fcd00' },
      }),
    ).toBe('firmware 23.05.5 (r24106-10cc5fcd00) · openwrt.bin');
  });

  it('counts applied and upgraded as succeeded, failed and rolled back as failed', () => {
    const counts = { applied: 2, upgraded: 3, failed: 1, rolled_back: 1, unconfirmed: 4 };
    expect(succeededCount(counts)).toBe(5);
    expect(failedCount(counts)).toBe(2);
    expect(succeededCount({})).toBe(0);
  });

  it('shows each kind its own states, and any other state a target is in', () => {
    expect(statesShown('profile')).toEqual(['queued', 'sent', 'applied', 'failed', 'rolled_back', 'skipped']);
    expect(statesShown('firmware')).toEqual(['queued', 'sent', 'failed', 'skipped', 'upgraded', 'unconfirmed']);
    expect(statesShown('firmware', { applied: 1 })).toContain('applied');
    expect(statesShown('profile', { unconfirmed: 0 })).not.toContain('unconfirmed');
  });
});
