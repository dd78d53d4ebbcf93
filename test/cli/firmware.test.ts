import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import type { SimulatedRouter } from '../../agent/sim/simulated-router.js';
import { writeFwtoolImage } from '../../core/firmware/index.js';
import type { Controller } from '../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { eventually, startTestController } from '../support/controller.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');

/**
 * A sysupgrade image for the KT KM14-102H fixture (board kt,km14-102h, ramips/mt7621, running
 * 24.10.4 r28959): a later 24.10 build, so it fits that model's router and no other.
 */
const MT7621_METADATA = {
  metadata_version: '1.1',
  compat_version: '1.0',
  supported_devices: ['kt,km14-102h'],
  version: {
    dist: 'OpenWrt',
    version: '24.10.5',
    revision: 'r29087-d9c5716d1d',
    target: 'ramips/mt7621',
    board: 'kt_km14-102h',
  },
};

describe('wrtfleet firmware, and rollouts of an image, against a live controller', () => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;
  let fleet: SimulatedRouter[] = [];
  let env: NodeJS.ProcessEnv;
  let dir: string;
  let imageFile: string;

  /** Runs the CLI's bin; resolves with exit code and output. */
  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, ['cli/bin.mjs', ...args], {
        cwd: repo,
        env,
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  /** The REST API directly, to check what the CLI did. */
  const api = async (method: string, apiPath: string) => {
    const res = await fetch(`${controller.httpUrl}${apiPath}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  };

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, token } = await startTestController(db, { security: { insecureAgents: true } }));
    env = { ...process.env, WRTFLEET_URL: controller.httpUrl, WRTFLEET_TOKEN: token };
    // One router per fixture model: three boards, three targets, two releases.
    fleet = await startSimulatedFleet({
      controller: controller.grpcAddress,
      fixtureRoots: await fixtureModels(defaultFixturesDir()),
      perModel: 1,
      reconnect: { jitterWindowMs: 200 },
    });
    await eventually(async () => controller.gateway.sessions.size === 3, 15_000, 'three agents');
    dir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-cli-fw-'));
    imageFile = path.join(dir, 'openwrt-24.10.5-ramips-mt7621-kt_km14-102h-squashfs-sysupgrade.bin');
    await writeFile(imageFile, writeFwtoolImage(randomBytes(300_000), MT7621_METADATA));
  });

  afterAll(async () => {
    await stopFleet(fleet);
    await controller?.close();
    await db?.drop();
  });

  let sha256: string;

  it('firmware add streams the image and prints what it fits; again, it is already stored', async () => {
    const added = await cli('firmware', 'add', imageFile);
    expect(added.code, added.stderr).toBe(0);
    sha256 = /^stored: ([0-9a-f]{64})\s/m.exec(added.stdout)?.[1] ?? '';
    expect(sha256).toHaveLength(64);
    expect(added.stdout).toContain('OpenWrt 24.10.5 (r29087-d9c5716d1d) for ramips/mt7621');
    expect(added.stdout).toMatch(/^fits 1 of 3 routers$/m);
    expect(added.stdout).toMatch(/^ {2}2 refused \(board\)$/m);
    expect(added.stdout).toMatch(/board "[^"]+" is not in the image's supported_devices \(kt,km14-102h\)/);

    const again = await cli('--json', 'firmware', 'add', imageFile);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ sha256, release: '24.10.5', fit: { routers: 3, fits: 1 } });
    const human = await cli('firmware', 'add', imageFile);
    expect(human.stdout).toMatch(new RegExp(`^already stored: ${sha256}`, 'm'));
    expect((await api('GET', '/v1/firmware/images')).body.items).toHaveLength(1);
  });

  it('firmware add of a file with no fwtool metadata prints the reason and exits 1', async () => {
    const bare = path.join(dir, 'not-an-image.bin');
    await writeFile(bare, randomBytes(50_000));
    const refused = await cli('firmware', 'add', bare);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^wrtfleet: not-an-image\.bin refused \(no_metadata\): \S/m);
    const json = await cli('--json', 'firmware', 'add', bare);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ status: 422, code: 'no_metadata' });
    expect((await cli('firmware', 'add', path.join(dir, 'missing.bin'))).code).toBe(2);
  });

  it('firmware ls, and show by prefix and by file name with the refusal groups and examples', async () => {
    const ls = await cli('firmware', 'ls');
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(/^SHA256\s+FILENAME\s+RELEASE/m);
    expect(ls.stdout).toMatch(new RegExp(`^${sha256.slice(0, 12)}\\s+openwrt-24\\.10\\.5.*\\s1/3\\s`, 'm'));

    const byPrefix = await cli('firmware', 'show', sha256.slice(0, 10));
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.stdout).toContain('supported devices: kt,km14-102h');
    const routers = (await api('GET', '/v1/routers')).body.items as { name: string; soc: string }[];
    const others = routers.filter((r) => r.soc !== 'MT7621').map((r) => r.name);
    expect(byPrefix.stdout).toMatch(new RegExp(`2 refused \\(board\\): (${others.join('|')}), (${others.join('|')})`));

    const byName = await cli('--json', 'firmware', 'show', path.basename(imageFile), '--reset-config');
    expect(byName.code, byName.stderr).toBe(0);
    // Judged as sysupgrade -n: the one router it fits would lose its configuration.
    expect(JSON.parse(byName.stdout).fit).toMatchObject({ fits: 1, configReset: 1 });
    expect((await cli('firmware', 'show', 'abc')).stderr).toMatch(/at least 8 characters/);
  });

  it('rollouts create --firmware creates a firmware rollout; rm is refused until it is cancelled', async () => {
    expect((await cli('rollouts', 'create', '--firmware', sha256, '--profile', 'home', '--all')).stderr).toMatch(
      /give --profile or --firmware, not both/,
    );
    const misplaced = await cli('rollouts', 'create', '--profile', 'home', '--all', '--window', '02:00-05:00');
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(/--window: only with --firmware/);
    expect((await cli('rollouts', 'create', '--firmware', sha256, '--all', '--window', '2-5')).code).toBe(2);

    // Scheduled an hour ahead: the rollout is active, and nothing is sent to the simulated routers.
    const startAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await cli(
      ...['rollouts', 'create', '--firmware', path.basename(imageFile), '--all', '--start-at', startAt],
      ...['--window', '02:00-05:00@Europe/Paris', '--step-timeout', '600', '--confirm-timeout', '1200'],
    );
    expect(created.code, created.stderr).toBe(0);
    const id = /^rollout (\S+): firmware /m.exec(created.stdout)?.[1];
    expect(created.stdout).toMatch(/1 routers in \d+ batches \(scheduled\); 2 left out, the image does not fit them/);
    const rollout = (await api('GET', `/v1/rollouts/${id}`)).body;
    expect(rollout).toMatchObject({
      kind: 'firmware',
      profile: null,
      firmware: {
        image: sha256,
        release: '24.10.5',
        options: {
          keepConfig: true,
          window: { start: '02:00', end: '05:00', timeZone: 'Europe/Paris' },
          stepTimeoutSeconds: 600,
          confirmTimeoutSeconds: 1200,
        },
      },
    });

    const status = await cli('rollouts', 'status', id!);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`image ${sha256} ${path.basename(imageFile)}, OpenWrt 24.10.5`);
    expect(status.stdout).toMatch(/^NAME\s+BATCH\s+STATE\s+STEP/m);
    expect(status.stdout).toMatch(/UPGRADED\s+UNCONFIRMED|UNCONFIRMED\s+.*UPGRADED|UPGRADED.*UNCONFIRMED/);
    expect((await cli('rollouts', 'ls')).stdout).toMatch(new RegExp(`^${id}\\s+firmware\\s+firmware openwrt-`, 'm'));

    const refused = await cli('firmware', 'rm', sha256.slice(0, 8));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`rollouts carrying it: ${id} (scheduled)`);
    expect((await api('GET', `/v1/firmware/images/${sha256}`)).status).toBe(200);

    expect((await cli('rollouts', 'cancel', id!)).code).toBe(0);
    const removed = await cli('firmware', 'rm', sha256.slice(0, 8));
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`removed ${sha256}`);
    expect((await api('GET', `/v1/firmware/images/${sha256}`)).status).toBe(404);
    expect((await api('GET', `/v1/rollouts/${id}`)).body.firmware.image).toBeNull();
  });
});
