import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FirmwareUpgrader } from '../../../agent/firmware/firmware-upgrader.js';
import { FirmwareProgress_Step as Step } from '../../../agent/firmware/firmware-progress.js';
import { LocalHost } from '../../../core/host/local-host.js';
import type { FirmwareProgress, FirmwareUpgrade } from '../../../proto/gen/wrtfleet/agent/v1/firmware.js';
import { FakeRouterTools, imageSource, type ImageSource } from './fake-router-tools.js';

const image = randomBytes(300 * 1024);
const sha256 = createHash('sha256').update(image).digest('hex');

function upgrade(extra: Partial<FirmwareUpgrade> = {}): FirmwareUpgrade {
  return {
    upgradeId: 'up-1',
    sha256,
    sizeBytes: image.length,
    keepConfig: true,
    release: '24.10.0',
    revision: 'r28427-6df0e3d02a',
    ...extra,
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('FirmwareUpgrader on a LocalHost with fake router tools', () => {
  let tools: FakeRouterTools;
  let sent: FirmwareProgress[];
  let imagePath: string;

  beforeEach(() => {
    tools = new FakeRouterTools();
    sent = [];
    imagePath = join(tools.dir, 'wrtfleet-firmware.bin');
  });
  afterEach(() => tools.cleanup());

  const upgrader = (source: ImageSource, flashed?: () => void) =>
    new FirmwareUpgrader({
      host: new LocalHost(),
      download: source.download,
      send: (p) => sent.push(p),
      imagePath,
      transfer: { retryDelayMs: () => 10 },
      onFlashing: flashed,
    });
  const steps = () => sent.map((p) => `${Step[p.step]}${p.failed ? ' failed' : ''}`);

  it('checks, transfers, verifies, tests and starts sysupgrade, reporting each step', async () => {
    let flashed = 0;
    const source = imageSource(image);
    const u = upgrader(source, () => flashed++);
    await u.handle(upgrade());
    expect([...new Set(steps())]).toEqual([
      'STEP_CHECKING',
      'STEP_TRANSFERRING',
      'STEP_VERIFYING',
      'STEP_TESTING',
      'STEP_FLASHING',
    ]);
    expect(sent.at(-1)!.step).toBe(Step.STEP_FLASHING);
    const transfers = sent.filter((p) => p.step === Step.STEP_TRANSFERRING);
    expect(transfers.at(-1)!.bytesDone).toBe(image.length);
    // At most every 10 % (or 2 s): a 300 KiB image in 16 KiB chunks is not a message per chunk.
    expect(transfers.length).toBeLessThanOrEqual(12);
    expect(readFileSync(imagePath).equals(image)).toBe(true);
    await until(() => tools.sysupgradeRuns().length === 2, 'sysupgrade to start');
    expect(tools.sysupgradeRuns()).toEqual([`-T ${imagePath}`, imagePath]);
    expect(flashed).toBe(1);
    expect(u.active).toMatchObject({ upgradeId: 'up-1', flashing: true });
  });

  it('runs sysupgrade -n (test and flash) when the configuration is not kept', async () => {
    await upgrader(imageSource(image)).handle(upgrade({ keepConfig: false }));
    await until(() => tools.sysupgradeRuns().length === 2, 'sysupgrade to start');
    expect(tools.sysupgradeRuns()).toEqual([`-T -n ${imagePath}`, `-n ${imagePath}`]);
  });

  it('resumes a broken download from the bytes already on the router', async () => {
    const source = imageSource(image, { breakAt: 96 * 1024 });
    await upgrader(source).handle(upgrade());
    expect(source.requests).toEqual([0, 96 * 1024]);
    expect(source.served()).toBe(image.length);
    expect(readFileSync(imagePath).equals(image)).toBe(true);
    expect(sent.at(-1)).toMatchObject({ step: Step.STEP_FLASHING, failed: false });
    await until(() => tools.sysupgradeRuns().length === 2, 'sysupgrade to start');
  });

  it('gives up on a download that stalls and resumes it', async () => {
    const source = imageSource(image, { stallAt: 64 * 1024 });
    const u = new FirmwareUpgrader({
      host: new LocalHost(),
      download: source.download,
      send: (p) => sent.push(p),
      imagePath,
      transfer: { retryDelayMs: () => 10, stallMs: 200 },
    });
    await u.handle(upgrade());
    expect(source.requests).toEqual([0, 64 * 1024]);
    expect(readFileSync(imagePath).equals(image)).toBe(true);
    await until(() => tools.sysupgradeRuns().length === 2, 'sysupgrade to start');
  });

  it('refuses on a SHA-256 mismatch, removes the file and never runs sysupgrade', async () => {
    await upgrader(imageSource(image)).handle(upgrade({ sha256: 'ab'.repeat(32) }));
    expect(sent.at(-1)).toMatchObject({ step: Step.STEP_VERIFYING, failed: true });
    expect(sent.at(-1)!.detail).toMatch(/SHA-256 mismatch: the router computed [0-9a-f]{64}/);
    expect(existsSync(imagePath)).toBe(false);
    expect(tools.sysupgradeRuns()).toEqual([]);
  });

  it('refuses before any transfer when /tmp has no room, saying how much', async () => {
    tools.setTmpFreeKiB(1024);
    const source = imageSource(image);
    await upgrader(source).handle(upgrade());
    expect(steps()).toEqual(['STEP_CHECKING', 'STEP_CHECKING failed']);
    expect(sent.at(-1)!.detail).toMatch(/\/tmp has 1\.0 MiB free/);
    expect(source.requests).toEqual([]);
  });

  it("reports sysupgrade -T's own words when the router refuses the image, and removes it", async () => {
    tools.failTest(true);
    await upgrader(imageSource(image)).handle(upgrade());
    expect(sent.at(-1)).toMatchObject({ step: Step.STEP_TESTING, failed: true });
    expect(sent.at(-1)!.detail).toContain('not supported by this image');
    expect(existsSync(imagePath)).toBe(false);
    expect(tools.sysupgradeRuns()).toEqual([`-T ${imagePath}`]);
  });

  it('ignores a second copy of the running upgrade and refuses another one meanwhile', async () => {
    const source = imageSource(image, { delayMs: 5 });
    const u = upgrader(source);
    const first = u.handle(upgrade());
    await until(() => sent.some((p) => p.step === Step.STEP_TRANSFERRING), 'the transfer');
    await u.handle(upgrade());
    await u.handle(upgrade({ upgradeId: 'up-2' }));
    await first;
    expect(source.requests).toEqual([0]);
    const refused = sent.filter((p) => p.upgradeId === 'up-2');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ failed: true });
    expect(refused[0]!.detail).toMatch(/upgrade up-1 is at transferring/);
    // Flashed: the same id again starts nothing; the router says again where it stands (a
    // report lost with a dropped stream is repaired when the controller sends the upgrade again).
    const before = sent.length;
    await u.handle(upgrade());
    expect(sent.slice(before)).toEqual([
      expect.objectContaining({ upgradeId: 'up-1', step: Step.STEP_FLASHING, failed: false }),
    ]);
    expect(source.requests).toEqual([0]);
  });
});
