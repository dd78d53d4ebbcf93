import { describe, expect, it } from 'vitest';
import { firmwareScriptByRules, kernelForRelease, shareOf } from '../../../agent/sim/simulated-firmware-script.js';

describe('simulated firmware scripts', () => {
  it('matches rules by identity or name, first rule wins', () => {
    const script = firmwareScriptByRules([
      { match: /mt7621/, failStep: 'testing', failDetail: 'Image check failed.' },
      { match: /^archer-/, ending: 'old-release' },
    ]);
    expect(script('sim.kt-km14-102h-mt7621:001', 'kt-km14-102h-mt7621-001')).toEqual({
      failStep: 'testing',
      failDetail: 'Image check failed.',
    });
    expect(script('sim.tplink:004', 'archer-004')).toEqual({ ending: 'old-release' });
    expect(script('sim.glinet:001', 'glinet-001')).toBeUndefined();
  });

  it('takes a stable share of a fleet', () => {
    const script = firmwareScriptByRules([{ share: 0.05, ending: 'never-returns' }]);
    const ids = Array.from({ length: 4000 }, (_, i) => `sim.m:${i}`);
    const lost = ids.filter((id) => script(id, id)?.ending === 'never-returns');
    expect(lost.length).toBeGreaterThan(120);
    expect(lost.length).toBeLessThan(280);
    expect(ids.filter((id) => script(id, id)?.ending === 'never-returns')).toEqual(lost);
    expect(shareOf('sim.m:1')).toBe(shareOf('sim.m:1'));
  });

  it('follows the release with its kernel', () => {
    expect(kernelForRelease('19.07.10')).toMatch(/^4\.14\./);
    expect(kernelForRelease('21.02.7')).toMatch(/^5\.4\./);
    expect(kernelForRelease('22.03.6')).toMatch(/^5\.10\./);
    expect(kernelForRelease('23.05.3')).toMatch(/^5\.15\./);
    expect(kernelForRelease('24.10.0')).toMatch(/^6\.6\./);
    expect(kernelForRelease('SNAPSHOT')).toBeNull();
  });
});
