/**
 * A firmware rollout to a fleet of simulated routers, measured as production runs the controller:
 * in its own process (`server/launch.mjs server/main.ts`) on PostgreSQL + Redis; the routers in
 * this process, all of one model (the Archer C7 v2's captured tree), each running the agent's own
 * upgrader: it really downloads the image over DownloadFirmware, checks its SHA-256 and its fwtool
 * metadata, then "flashes" (simulated: it goes away for WF_BENCH_REBOOT_MS and comes back on the
 * image's release with a new boot id). One run:
 *  - time from POST /v1/rollouts to `completed`, and that time less the simulated reboots (one per
 *    batch: a batch ends when its last router is back);
 *  - the controller's CPU over the rollout, per router;
 *  - bytes served (wrtfleet_firmware_bytes_served_total) against routers x image size;
 *  - the outcomes (every router upgraded, none unconfirmed).
 *
 * Run: npm run -s bench:firmware
 * knobs: WF_BENCH_ROUTERS (1000), WF_BENCH_CANARY (10), WF_BENCH_BATCH (200),
 *        WF_BENCH_IMAGE_BYTES (4 MiB: the payload of the image), WF_BENCH_REBOOT_MS (3000)
 */
import { randomUUID } from 'node:crypto';
import { startSimulatedFleet, stopFleet } from '../../agent/sim/simulated-fleet.js';
import { defaultFixturesDir, fixtureModels } from '../../agent/sim/fixtures.js';
import { writeFwtoolImage } from '../../core/firmware/index.js';
import { createPostgresDatabase } from '../../test/support/databases.js';
import { freePort } from '../../test/support/ports.js';
import { api, ControllerProcess, until } from '../fleet-scale/controller-process.js';
import { cpuSeconds } from '../fleet-scale/process-readings.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 1000);
const CANARY = Number(process.env.WF_BENCH_CANARY ?? 10);
const BATCH = Number(process.env.WF_BENCH_BATCH ?? 200);
const IMAGE_BYTES = Number(process.env.WF_BENCH_IMAGE_BYTES ?? 4 * 1024 * 1024);
const REBOOT_MS = Number(process.env.WF_BENCH_REBOOT_MS ?? 3000);
const REDIS_URL = process.env.WRTFLEET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

function benchImage(): Buffer {
  const payload = new Uint8Array(IMAGE_BYTES);
  for (let i = 0; i < payload.length; i++) payload[i] = (i * 131 + (i >> 11)) & 0xff;
  return Buffer.from(
    writeFwtoolImage(payload, {
      supported_devices: ['tplink,archer-c7-v2'],
      version: {
        dist: 'OpenWrt',
        version: '24.10.0',
        revision: 'r28427-6df0e3d02a',
        target: 'ath79/generic',
        board: 'tplink_archer-c7-v2',
      },
      compat_version: '1.0',
    }),
  );
}

async function bytesServed(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  return Number(/^wrtfleet_firmware_bytes_served_total (\d+)/m.exec(await res.text())?.[1] ?? 0);
}

async function main() {
  const db = await createPostgresDatabase();
  const ctl = new ControllerProcess(db, await freePort(), await freePort(), `wf-bench-${randomUUID().slice(0, 8)}`, {
    redisUrl: REDIS_URL,
    tls: false,
  });
  const c = await ctl.start();
  const archer = (await fixtureModels(defaultFixturesDir())).filter((r) => r.includes('archer-c7'));
  const fleet = await startSimulatedFleet({
    controller: `127.0.0.1:${c.grpcPort}`,
    fixtureRoots: archer,
    perModel: ROUTERS,
    reconnect: { jitterWindowMs: 2_000, initialDelayMs: 200, maxDelayMs: 2_000 },
    firmware: { rebootMs: REBOOT_MS },
  });
  try {
    await until(
      async () => (await api<{ online: number }>(c, '/v1/routers/counts')).online >= ROUTERS,
      300_000,
      'fleet online',
    );
    const image = benchImage();
    const upload = await fetch(`${c.url}/v1/firmware/images?fileName=bench-sysupgrade.bin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(image),
    });
    if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
    const { sha256 } = (await upload.json()) as { sha256: string };

    const cpu0 = await cpuSeconds(c.process.pid!);
    const bytes0 = await bytesServed(c.url, c.token);
    const t0 = Date.now();
    const rollout = await api<{ id: string; batchCount: number; total: number }>(c, '/v1/rollouts', {
      method: 'POST',
      body: {
        firmware: { image: sha256 },
        selector: { all: true },
        strategy: { canary: CANARY, batchSize: BATCH, maxFailureRatio: 0.5 },
      },
    });
    type View = { state: string; counts: Record<string, number> };
    let view: View | undefined;
    await until(
      async () => {
        view = await api<View>(c, `/v1/rollouts/${rollout.id}`);
        return view.state === 'completed' || view.state === 'paused';
      },
      1_800_000,
      'rollout completed',
    );
    const seconds = (Date.now() - t0) / 1000;
    const cpu = (await cpuSeconds(c.process.pid!)) - cpu0;
    const bytes = (await bytesServed(c.url, c.token)) - bytes0;
    const rebootSeconds = (rollout.batchCount * REBOOT_MS) / 1000;
    console.log(
      [
        `firmware rollout: ${rollout.total} routers, image ${fmt(image.length / 1048576, 2)} MiB, canary ${CANARY}, batches of ${BATCH} (${rollout.batchCount} batches), simulated reboot ${REBOOT_MS} ms`,
        `  state ${view!.state}: ${JSON.stringify(view!.counts)}`,
        `  time to completion  ${fmt(seconds)} s; less the simulated reboots (${fmt(rebootSeconds)} s): ${fmt(seconds - rebootSeconds)} s, ${fmt((seconds - rebootSeconds) / rollout.batchCount)} s per batch`,
        `  controller CPU      ${fmt(cpu, 2)} s: ${fmt((cpu * 1000) / rollout.total, 2)} ms per router`,
        `  bytes served        ${fmt(bytes / 1048576, 0)} MiB: ${fmt(bytes / (image.length * rollout.total), 3)} x routers x image`,
      ].join('\n'),
    );
  } finally {
    await stopFleet(fleet);
    await ctl.kill('SIGTERM');
    await db.drop();
  }
}

await main();
