/**
 * The router lab's command line (`npm run lab -- <command> <arch>`):
 *   build <arch>            build (or find in the cache) the guest image; prints its directory
 *   boot <arch> [--jit 0|1] boot it and stay up until Ctrl-C, printing how to log in
 *   check <arch> [--json] [--only name,...]
 *                           boot it, run the checks of lab/checks/index.ts (or only those named),
 *                           exit 0 only if all hold
 * Needs root (namespaces, taps) and the host tools the image scripts install or name.
 */
import { startGuest, type Guest, type GuestOptions } from './guest.js';
import { ensureImage, isLabArch, LAB_ARCHES, type LabArch } from './image-cache.js';
import { LAB_CHECKS, runChecks, type CheckReport } from './checks/index.js';
import { buildBpfObjects } from './bpf-objects.js';

const USAGE = `usage: npm run lab -- build <arch>
       npm run lab -- boot <arch> [--jit 0|1] [--memory MiB]
       npm run lab -- check <arch> [--json] [--jit 0|1] [--only name,...]
arch: ${LAB_ARCHES.join(' | ')}`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

interface LabArgs {
  command: string;
  arch: LabArch;
  json: boolean;
  guest: GuestOptions;
  /** Check names to run; all of the arch's when absent. */
  only?: string[];
}

function parseArgs(argv: string[]): LabArgs {
  const [command, arch, ...rest] = argv;
  if (!command || !arch || !['build', 'boot', 'check'].includes(command)) fail(USAGE);
  if (!isLabArch(arch)) fail(`unknown arch ${arch}\n${USAGE}`);
  const guest: GuestOptions = {};
  let json = false;
  let only: string[] | undefined;
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    if (flag === '--json') json = true;
    else if (flag === '--jit' && (rest[i + 1] === '0' || rest[i + 1] === '1')) guest.jit = rest[++i] === '1';
    else if (flag === '--memory' && Number(rest[i + 1]) > 0) guest.memoryMiB = Number(rest[++i]);
    else if (flag === '--only' && rest[i + 1]) only = rest[++i]!.split(',');
    else fail(`unknown option ${flag}\n${USAGE}`);
  }
  const unknown = only?.filter((name) => !LAB_CHECKS.some((c) => c.name === name && c.arches.includes(arch)));
  if (unknown?.length) fail(`no ${arch} check named ${unknown.join(', ')}\n${USAGE}`);
  return { command, arch, json, guest, only };
}

function printLogin(guest: Guest): void {
  const ns = guest.namespaces;
  process.stdout.write(
    [
      `${guest.arch} guest up in ${guest.bootSeconds} s (kernel ${guest.image.manifest.kernelVersion ?? '?'})`,
      `  log in:       ${guest.sshCommand()}`,
      `  serial log:   ${guest.serialLogPath}`,
      `  LAN client:   ip netns exec ${ns.lan} bash      (${guest.addresses.lan.client}, guest ${guest.addresses.lan.guest})`,
      `  WAN peer:     ip netns exec ${ns.wan} bash      (${guest.addresses.wan.peer}, guest ${guest.addresses.wan.guest})`,
      `  QEMU, bridges: ip netns exec ${ns.qemu} bash`,
      'Ctrl-C stops the guest and removes the namespaces.',
      '',
    ].join('\n'),
  );
}

function printTable(reports: CheckReport[]): void {
  const rows = reports.map((r) => [
    r.ok ? 'ok' : 'FAIL',
    r.name,
    `${r.seconds} s`,
    r.detail,
    Object.entries(r.numbers ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
  ]);
  const width = (i: number) => Math.max(...rows.map((row) => row[i]!.length));
  for (const row of rows) {
    process.stdout.write(
      `${row[0]!.padEnd(width(0))}  ${row[1]!.padEnd(width(1))}  ${row[2]!.padStart(width(2))}  ${row[3]}\n`,
    );
    if (row[4]) process.stdout.write(`${''.padEnd(width(0) + width(1) + width(2) + 6)}${row[4]}\n`);
    for (const s of reports[rows.indexOf(row)]!.steps ?? [])
      if (!s.ok) process.stdout.write(`${''.padEnd(width(0) + 2)}- ${s.name}: ${s.detail}\n`);
  }
}

async function main(): Promise<void> {
  const { command, arch, json, guest: guestOptions, only } = parseArgs(process.argv.slice(2));
  if (command === 'build') {
    const image = await ensureImage(arch);
    process.stdout.write(`${image.dir}\n`);
    return;
  }
  if (command === 'check') buildBpfObjects();
  const guest = await startGuest(arch, guestOptions);
  let stopping = false;
  const stopAndExit = (code: number) => {
    if (stopping) return;
    stopping = true;
    void guest.stop().finally(() => process.exit(code));
  };
  process.on('SIGINT', () => stopAndExit(130));
  process.on('SIGTERM', () => stopAndExit(143));
  if (command === 'boot') {
    printLogin(guest);
    return; // QEMU's pipes keep the process alive until a signal stops it.
  }
  let reports: CheckReport[];
  try {
    // A check takes minutes on an emulated CPU: say each one's outcome as it comes.
    const checks = only ? LAB_CHECKS.filter((c) => only.includes(c.name)) : undefined;
    reports = await runChecks(guest, checks, (r) =>
      process.stderr.write(`lab: ${r.name} ${r.ok ? 'ok' : 'FAILED'} in ${r.seconds} s\n`),
    );
  } finally {
    await guest.stop();
  }
  const ok = reports.length > 0 && reports.every((r) => r.ok);
  if (json)
    process.stdout.write(`${JSON.stringify({ arch, ok, bootSeconds: guest.bootSeconds, checks: reports }, null, 2)}\n`);
  else printTable(reports);
  process.exitCode = ok ? 0 : 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
