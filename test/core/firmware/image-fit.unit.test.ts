import { describe, expect, it } from 'vitest';
import { judgeFit, type FirmwareMetadata, type RouterForFit } from '../../../core/firmware/index.js';

const IMAGE: FirmwareMetadata = {
  supportedDevices: ['tplink,archer-c7-v2', 'archer-c7-v2'],
  newSupportedDevices: null,
  version: {
    dist: 'OpenWrt',
    version: '24.10.0',
    revision: 'r28427-6df0e3d02a',
    target: 'ath79/generic',
    board: 'tplink_archer-c7-v2',
  },
  compatVersion: '1.0',
  compatMessage: null,
  raw: {},
};

const ROUTER: RouterForFit = {
  boardName: 'tplink,archer-c7-v2',
  target: 'ath79/generic',
  release: '23.05.3',
  revision: 'r23809-234f1a2efa',
  compatVersion: null,
};

const KEEP = { keepConfig: true, allowDowngrade: false };
const codes = (verdict: ReturnType<typeof judgeFit>) => verdict.refusals.map((refusal) => refusal.code);

describe('which routers an image fits', () => {
  it('fits the router it was built for, keeping the configuration', () => {
    const verdict = judgeFit(IMAGE, ROUTER, KEEP);
    expect(verdict).toEqual({ fits: true, refusals: [], configReset: false, notes: [] });
  });

  it('refuses a board that is not in supported_devices, naming the list', () => {
    const verdict = judgeFit(IMAGE, { ...ROUTER, boardName: 'tplink,archer-c7-v5' }, KEEP);
    expect(verdict.fits).toBe(false);
    expect(codes(verdict)).toEqual(['board']);
    expect(verdict.refusals[0]?.reason).toMatch(/tplink,archer-c7-v5.*tplink,archer-c7-v2, archer-c7-v2/);
  });

  it('compares board names exactly, as sysupgrade: "," and "_" are not the same', () => {
    const underscored = judgeFit(IMAGE, { ...ROUTER, boardName: 'tplink_archer-c7-v2' }, KEEP);
    expect(codes(underscored)).toEqual(['board']);
    expect(underscored.refusals[0]?.reason).toMatch(/lists "tplink,archer-c7-v2", which differs only in "," and "_"/);
    // An image that also lists the old spelling fits a router still using it.
    expect(judgeFit(IMAGE, { ...ROUTER, boardName: 'archer-c7-v2' }, KEEP).fits).toBe(true);
  });

  it('refuses a router whose board name is unknown', () => {
    expect(codes(judgeFit(IMAGE, { ...ROUTER, boardName: null }, KEEP))).toEqual(['unknown_board']);
  });

  it('refuses another target, and notes when either side does not name one', () => {
    const other = judgeFit(IMAGE, { ...ROUTER, target: 'ramips/mt7621' }, KEEP);
    expect(codes(other)).toEqual(['target']);
    expect(other.refusals[0]?.reason).toMatch(/ath79\/generic.*ramips\/mt7621/);
    const unknownTarget = judgeFit(IMAGE, { ...ROUTER, target: null }, KEEP);
    expect(unknownTarget.fits).toBe(true);
    expect(unknownTarget.notes.join()).toMatch(/target is not known/);
    const oldImage = judgeFit({ ...IMAGE, version: { ...IMAGE.version, target: null } }, ROUTER, KEEP);
    expect(oldImage.fits).toBe(true);
    expect(oldImage.notes.join()).toMatch(/does not name its target/);
  });

  it('refuses a downgrade unless allowed', () => {
    const newer = { ...ROUTER, release: '25.12.0', revision: 'r30000-abc' };
    const refused = judgeFit(IMAGE, newer, KEEP);
    expect(codes(refused)).toEqual(['downgrade']);
    expect(refused.refusals[0]?.reason).toMatch(/24\.10\.0 .* older than .* 25\.12\.0/);
    const allowed = judgeFit(IMAGE, newer, { keepConfig: true, allowDowngrade: true });
    expect(allowed.fits).toBe(true);
    expect(allowed.notes.join()).toMatch(/older than.*allowed/);
  });

  it('refuses the same build unless allowed', () => {
    const same = { ...ROUTER, release: '24.10.0', revision: 'r28427-6df0e3d02a' };
    expect(codes(judgeFit(IMAGE, same, KEEP))).toEqual(['same_release']);
    expect(judgeFit(IMAGE, same, { keepConfig: true, allowDowngrade: true }).fits).toBe(true);
  });

  it('orders SNAPSHOT builds by revision', () => {
    const snapshot = { ...IMAGE, version: { ...IMAGE.version, version: 'SNAPSHOT', revision: 'r28600-1111111111' } };
    const onSnapshot = (revision: string) => ({ ...ROUTER, release: 'SNAPSHOT', revision });
    expect(judgeFit(snapshot, onSnapshot('r28500-2222222222'), KEEP).fits).toBe(true);
    expect(codes(judgeFit(snapshot, onSnapshot('r28700-3333333333'), KEEP))).toEqual(['downgrade']);
    const unordered = judgeFit(snapshot, { ...ROUTER, release: 'SNAPSHOT', revision: null }, KEEP);
    expect(unordered.fits).toBe(true);
    expect(unordered.notes.join()).toMatch(/Cannot tell whether SNAPSHOT/);
  });

  it('without keeping the configuration, resets it and says the agent must be restored', () => {
    const verdict = judgeFit(IMAGE, ROUTER, { keepConfig: false, allowDowngrade: false });
    expect(verdict).toMatchObject({ fits: true, configReset: true });
    expect(verdict.notes.join()).toMatch(/agent, its certificate and key.*restored/);
  });
});

describe('compat versions, as fwtool.sh checks them', () => {
  const migrated: FirmwareMetadata = {
    ...IMAGE,
    compatVersion: '1.1',
    compatMessage: 'Config cannot be migrated from swconfig to DSA',
    supportedDevices: ['tplink,archer-c7-v2'],
    newSupportedDevices: ['tplink,archer-c7-v2'],
  };

  it('a different minor compat version needs -n: refused when keeping config', () => {
    const verdict = judgeFit(migrated, ROUTER, KEEP);
    expect(codes(verdict)).toEqual(['config_reset_needed']);
    expect(verdict.refusals[0]?.reason).toMatch(/1\.0 differs from the image's 1\.1.*sysupgrade -n.*swconfig to DSA/);
  });

  it('a different minor compat version fits with the configuration reset', () => {
    const verdict = judgeFit(migrated, ROUTER, { keepConfig: false, allowDowngrade: false });
    expect(verdict).toMatchObject({ fits: true, configReset: true });
    expect(verdict.notes.join('\n')).toMatch(/1\.0 -> 1\.1: sysupgrade requires -n/);
  });

  it('an image with a lower minor compat version than the router also needs -n', () => {
    const older = { ...migrated, compatVersion: '1.1' };
    expect(codes(judgeFit(older, { ...ROUTER, compatVersion: '1.2' }, KEEP))).toEqual(['config_reset_needed']);
  });

  it('a different major compat version is refused even with -n', () => {
    const major = { ...migrated, compatVersion: '2.0', compatMessage: 'Reinstall with the factory image.' };
    for (const keepConfig of [true, false]) {
      const verdict = judgeFit(major, ROUTER, { keepConfig, allowDowngrade: false });
      expect(codes(verdict)).toEqual(['compat']);
      expect(verdict.refusals[0]?.reason).toMatch(/major part.*Reinstall with the factory image/);
    }
  });

  it('a router already on the image compat version keeps its configuration', () => {
    expect(judgeFit(migrated, { ...ROUTER, compatVersion: '1.1' }, KEEP).fits).toBe(true);
  });

  it('matches a compat image against new_supported_devices, not supported_devices', () => {
    const moved = { ...migrated, supportedDevices: ['tplink,archer-c7-v2'], newSupportedDevices: ['other,board'] };
    expect(codes(judgeFit(moved, { ...ROUTER, compatVersion: '1.1' }, KEEP))).toEqual(['board']);
    const missing = { ...migrated, newSupportedDevices: null };
    const verdict = judgeFit(missing, { ...ROUTER, compatVersion: '1.1' }, KEEP);
    expect(verdict.refusals[0]?.reason).toMatch(/no new_supported_devices/);
  });
});
