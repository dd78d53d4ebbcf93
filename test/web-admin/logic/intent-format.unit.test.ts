import { describe, expect, it } from 'vitest';
import {
  percent,
  policyName,
  profileTarget,
  selectorWords,
  shortSha,
  soakWords,
  windowWords,
} from '../../../web-admin/src/pages/intent/intent-format.js';

describe('the fleet as code in words (Fleet intent page)', () => {
  it('names the profile an assignment runs, pinned or following the latest revision', () => {
    expect(profileTarget({ profile: 'home' })).toBe('home@latest');
    expect(profileTarget({ profile: 'home', revision: 3 })).toBe('home@3');
  });

  it('says which routers a selector takes', () => {
    expect(selectorWords({ tags: ['site:ams'] })).toBe('tagged site:ams');
    expect(selectorWords({ all: true })).toBe('every router');
    expect(selectorWords({ soc: ['MT7621'], release: ['23.05'] })).toBe('SoC MT7621, OpenWrt 23.05');
    expect(selectorWords(undefined)).toBe('nothing');
  });

  it('reads a rollout policy: failures as a percentage, soak and window or their absence', () => {
    expect(percent(0)).toBe('0%');
    expect(percent(0.125)).toBe('12.5%');
    expect(soakWords(0)).toBe('none');
    expect(soakWords(600)).toBe('10m');
    expect(windowWords(undefined)).toBe('any time');
    expect(windowWords({ start: '22:00', end: '04:00', timeZone: 'Europe/Paris' })).toBe(
      '22:00–04:00 Europe/Paris, overnight',
    );
    expect(policyName(undefined)).toBe('default strategy');
    expect(policyName('careful')).toBe('careful');
  });

  it('shortens an image digest as a commit is', () => {
    expect(shortSha('ab'.repeat(32))).toBe('abababababab');
  });
});
