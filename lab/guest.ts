/**
 * Boots one lab guest: a real 32-bit MIPS kernel under QEMU (TCG, `-M malta -cpu 24Kc`) wired
 * as a router between a LAN client and a WAN peer (lab/topology.ts), and driven over SSH with
 * the same SshHost the proxy agent uses, so the lab exercises that code against dropbear.
 *
 * QEMU runs inside `wflab-<arch>`, where its user-networking port forward listens; a socat in
 * the host's namespace carries 127.0.0.1:<sshPort> into it, so the guest is reachable as
 * 127.0.0.1:<sshPort> from the host. A state file per arch records who owns the running
 * guest: a guest whose owner died is cleaned up at the next start, one whose owner lives is
 * refused (two boots of one arch would share namespace names).
 *
 * A reboot in the guest resets the same QEMU (no -no-reboot): the same kernel, initrd and command
 * line boot again, a new boot id, the same SSH port; what the guest wrote to its flash disk
 * (lab/guest-flash.ts) survives it. A kernel panic fails the boot at once (panic=-1 would loop).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SshHost } from '../core/host/ssh-host.js';
import { createBlankFlash, flashPath, flashQemuArgs, removeFlash } from './guest-flash.js';
import type { CommandResult, RunOptions } from '../core/host/router-host.js';
import {
  ensureImage,
  labCacheRoot,
  labKeyPair,
  processAlive,
  type LabArch,
  type LabImage,
  type ProgressLog,
} from './image-cache.js';
import {
  LAB_ADDRESSES,
  createTopology,
  destroyTopology,
  hostExec,
  inNamespace,
  listNamespaces,
  namespacesFor,
  type ExecResult,
  type LabAddresses,
  type LabNamespaces,
  type NamespaceRole,
} from './topology.js';

export interface GuestOptions {
  /** net.core.bpf_jit_enable at boot; the kernel's default when left out. */
  jit?: boolean;
  /** Guest RAM (default 256: the malta kernels see no more without highmem). */
  memoryMiB?: number;
  /** Progress lines (image build, boot); default: stderr. */
  log?: ProgressLog;
  /** Host port for the guest's SSH (default 22101 mipsel, 22102 mips; 10 more for an instance). */
  sshPort?: number;
  /**
   * A second guest of the same arch beside the first (lowercase letters and digits): its own
   * namespaces (`wflab-<arch>-<instance>...`), SSH port and serial log. The lab tier gives the
   * agent check a mipsel guest of its own this way.
   */
  instance?: string;
  /** Time allowed from QEMU's start to LAB-READY (default 120 s). */
  bootTimeoutMs?: number;
}

export interface Guest {
  arch: LabArch;
  /** The arch, or `<arch>-<instance>`: what its namespaces, state file and serial log are named by. */
  name: string;
  image: LabImage;
  sshHost: string;
  sshPort: number;
  hostKeyFingerprint: string;
  privateKeyPath: string;
  serialLogPath: string;
  namespaces: LabNamespaces;
  addresses: LabAddresses;
  /** Seconds from QEMU's start to LAB-READY. */
  bootSeconds: number;
  /** The guest as a RouterHost (what agent code takes). */
  host: SshHost;
  /** A command on the guest, over SSH. */
  run(cmd: string[], options?: RunOptions): Promise<CommandResult>;
  /** A command on the host inside one of the guest's namespaces (the LAN client, the WAN peer). */
  runIn(role: NamespaceRole, cmd: string[], options?: { timeoutMs?: number; input?: string }): Promise<ExecResult>;
  /** The ssh command line that logs in as root. */
  sshCommand(): string;
  stop(): Promise<void>;
}

const QEMU_BINARY: Record<LabArch, string> = { mipsel: 'qemu-system-mipsel', mips: 'qemu-system-mips' };
const DEFAULT_SSH_PORT: Record<LabArch, number> = { mipsel: 22101, mips: 22102 };
// The only PCI slots the malta board routes an interrupt for (18-21): a NIC elsewhere fails
// its probe with EINVAL. MACs match what guest-init.sh names eth0/eth1/eth2.
const NICS = [
  { id: 'lan', slot: '0x12', mac: '52:54:00:00:00:01' },
  { id: 'wan', slot: '0x13', mac: '52:54:00:00:00:02' },
  { id: 'mgmt', slot: '0x14', mac: '52:54:00:00:00:03' },
] as const;

interface RunState {
  owner: number;
  qemu?: number;
  forwarder?: number;
  started: string;
}

const running = new Map<string, Guest>();

// Namespaces are host-wide, so the record of who owns them is too (not in the cache, which
// WRTFLEET_LAB_CACHE may point elsewhere per process).
const RUN_DIR = '/run/wrtfleet-lab';

function statePath(name: string): string {
  return join(RUN_DIR, `${name}.json`);
}

function parentOf(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name: state, then the parent pid.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Ends a recorded lab process, only if the pid still runs what the lab started. */
async function endProcess(pid: number | undefined, expect: RegExp): Promise<void> {
  if (!pid || !processAlive(pid) || !expect.test(commandLineOf(pid))) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 50 && processAlive(pid); i++) await sleep(100);
  if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 20 && processAlive(pid); i++) await sleep(100);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Cleans what a killed run left behind; refuses when another live process owns the guest's name. */
async function claimGuest(name: string): Promise<void> {
  if (running.has(name)) throw new Error(`a ${name} lab guest is already running in this process`);
  const file = statePath(name);
  let state: RunState | undefined;
  try {
    state = JSON.parse(await readFile(file, 'utf8')) as RunState;
  } catch {
    state = undefined;
  }
  if (state && state.owner !== process.pid && processAlive(state.owner)) {
    throw new Error(
      `a ${name} lab guest is running, owned by pid ${state.owner} (${commandLineOf(state.owner).slice(0, 120)}): stop it first`,
    );
  }
  if (state) {
    await endProcess(state.qemu, /qemu-system/);
    await endProcess(state.forwarder, /socat/);
  }
  const names = namespacesFor(name);
  const present = await listNamespaces();
  const inNamespaces: number[] = [];
  for (const ns of [names.qemu, names.lan, names.wan].filter((n) => present.includes(n)))
    inNamespaces.push(...(await hostExec(['ip', 'netns', 'pids', ns])).stdout.split(/\s+/).filter(Boolean).map(Number));
  // A QEMU whose parent lives belongs to a running lab, whatever the files say (another cache
  // directory, an older lab): refuse rather than pull its network away.
  for (const pid of inNamespaces) {
    const parent = parentOf(pid);
    if (/qemu-system/.test(commandLineOf(pid)) && parent !== undefined && parent > 1 && parent !== process.pid)
      throw new Error(
        `a ${name} lab guest is running (QEMU pid ${pid}, started by pid ${parent}: ${commandLineOf(parent).slice(0, 120)}): stop it first`,
      );
  }
  // Without a live owner, whatever still runs in the guest's namespaces is a killed run's.
  for (const pid of inNamespaces) await endProcess(pid, /qemu-system|iperf3|socat/);
  await destroyTopology(name);
  await mkdir(RUN_DIR, { recursive: true });
  await writeFile(file, JSON.stringify({ owner: process.pid, started: new Date().toISOString() } satisfies RunState));
}

function tailOf(lines: string[], n = 40): string {
  return lines.slice(-n).join('\n');
}

export async function startGuest(arch: LabArch, options: GuestOptions = {}): Promise<Guest> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const image = await ensureImage(arch, { log });
  const keys = await labKeyPair();
  if (options.instance !== undefined && !/^[a-z0-9]{1,4}$/.test(options.instance))
    throw new Error(`lab: instance "${options.instance}" is not 1-4 lowercase letters or digits`);
  const name = options.instance ? `${arch}-${options.instance}` : arch;
  await claimGuest(name);
  const namespaces = await createTopology(name);
  const sshPort = options.sshPort ?? DEFAULT_SSH_PORT[arch] + (options.instance ? 10 : 0);
  const serialLogPath = join(labCacheRoot(), 'logs', `${name}-serial.log`);
  const flash = flashPath(RUN_DIR, name);
  await createBlankFlash(flash);
  await mkdir(join(labCacheRoot(), 'logs'), { recursive: true });

  const append = [
    'console=ttyS0',
    'panic=-1',
    // ramfs, not the default tmpfs rootfs, which is capped at half the RAM: the image is bigger.
    'rootfstype=ramfs',
    `wf.key=${keys.publicKeyBlob}`,
    ...(options.jit === undefined ? [] : [`wf.jit=${options.jit ? 1 : 0}`]),
  ].join(' ');
  const qemuArgs = [
    QEMU_BINARY[arch],
    ...['-M', 'malta', '-cpu', '24Kc', '-m', String(options.memoryMiB ?? 256)],
    ...['-nographic', '-monitor', 'none', '-vga', 'none'],
    ...flashQemuArgs(flash),
    ...['-kernel', image.vmlinux, '-initrd', image.initrd, '-append', append],
    ...NICS.flatMap((nic) => [
      '-netdev',
      nic.id === 'mgmt'
        ? 'user,id=mgmt,net=10.0.2.0/24,hostfwd=tcp:127.0.0.1:22-:22'
        : // vnet_hdr=off: no checksum or segmentation offload between host and guest, so the
          // guest sees and forwards wire-sized frames, as a router's NIC does (with it, 64 KiB
          // GSO frames crossed the guest and never arrived intact at the WAN peer).
          `tap,id=${nic.id},ifname=tap-${nic.id},script=no,downscript=no,vnet_hdr=off`,
      // romfile=: no PXE ROM (not shipped for these boards, and never used).
      '-device',
      `virtio-net-pci,netdev=${nic.id},mac=${nic.mac},addr=${nic.slot},romfile=`,
    ]),
  ];

  const serialLines: string[] = [];
  const serialLog = createWriteStream(serialLogPath);
  let qemu: ChildProcess | undefined;
  let forwarder: ChildProcess | undefined;
  let host: SshHost | undefined;
  let stopped = false;
  const killOnExit = () => {
    for (const child of [qemu, forwarder]) if (child?.pid && child.exitCode === null) child.kill('SIGKILL');
  };

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killOnExit);
    await host?.close().catch(() => undefined);
    await endProcess(forwarder?.pid, /socat/);
    await endProcess(qemu?.pid, /qemu-system/);
    await destroyTopology(name);
    await new Promise<void>((r) => serialLog.end(r));
    await rm(statePath(name), { force: true });
    await removeFlash(flash);
    running.delete(name);
  };

  try {
    log(`lab: booting ${name} (${image.manifest.kernelVersion ?? 'kernel'}), serial log ${serialLogPath}`);
    const started = Date.now();
    const [launcher, ...launchArgs] = inNamespace(namespaces.qemu, qemuArgs);
    qemu = spawn(launcher!, launchArgs, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    process.on('exit', killOnExit);
    forwarder = spawn(
      'socat',
      [
        `TCP-LISTEN:${sshPort},bind=127.0.0.1,reuseaddr,fork`,
        `EXEC:nsenter --net=/run/netns/${namespaces.qemu} -- socat STDIO TCP\\:127.0.0.1\\:22`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let forwarderError = '';
    forwarder.stderr?.on('data', (d: Buffer) => (forwarderError += d.toString('utf8')));
    await writeFile(
      statePath(name),
      JSON.stringify({
        owner: process.pid,
        qemu: qemu.pid,
        forwarder: forwarder.pid,
        started: new Date().toISOString(),
      } satisfies RunState),
    );

    const fingerprint = await new Promise<string>((resolve, reject) => {
      let partial = '';
      let hostKey: string | undefined;
      let ready = false;
      const fail = (why: string) => {
        clearTimeout(timer);
        reject(
          new Error(
            `lab: the ${name} guest did not boot: ${why}\n--- serial log ${serialLogPath} (last lines) ---\n${tailOf(serialLines)}`,
          ),
        );
      };
      const timeoutMs = options.bootTimeoutMs ?? 120_000;
      const timer = setTimeout(() => fail(`no LAB-READY within ${timeoutMs / 1000} s`), timeoutMs);
      const onSerial = (chunk: Buffer) => {
        // Output still in the pipe when stop() closed the log is dropped, not written after its end.
        if (!serialLog.writableEnded) serialLog.write(chunk);
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const raw of lines) {
          const line = raw.replace(/\r$/, '');
          serialLines.push(line);
          if (serialLines.length > 400) serialLines.shift();
          const key = /LAB-HOSTKEY (SHA256:\S+)/.exec(line);
          if (key) hostKey = key[1];
          if (line.includes('LAB-FAILED')) fail(line.slice(line.indexOf('LAB-FAILED')));
          if (line.includes('Kernel panic')) fail(line.slice(line.indexOf('Kernel panic')));
          if (line.includes('LAB-READY') && ready) log(`lab: ${name} rebooted and is ready again`);
          if (line.includes('LAB-READY')) {
            ready = true;
            clearTimeout(timer);
            if (hostKey) resolve(hostKey);
            else fail('LAB-READY came without a LAB-HOSTKEY line');
          }
        }
      };
      qemu!.stdout!.on('data', onSerial);
      qemu!.stderr!.on('data', onSerial);
      qemu!.on('error', (err) => fail(`cannot start ${QEMU_BINARY[arch]}: ${err.message}`));
      qemu!.on('exit', (code, signal) => fail(`QEMU exited (${signal ?? `exit ${code}`})`));
      forwarder!.on('exit', (code) =>
        fail(`the SSH port forward (socat on 127.0.0.1:${sshPort}) exited (${code}): ${forwarderError.trim()}`),
      );
      forwarder!.on('error', (err) => fail(`cannot start socat (apt-get install socat): ${err.message}`));
    });
    const bootSeconds = Math.round((Date.now() - started) / 100) / 10;
    qemu.on('exit', (code, signal) => {
      if (!stopped)
        log(`lab: the ${name} guest's QEMU exited (${signal ?? `exit ${code}`}); serial log ${serialLogPath}`);
    });
    log(`lab: ${name} ready in ${bootSeconds} s, host key ${fingerprint}`);

    host = new SshHost({
      host: '127.0.0.1',
      port: sshPort,
      username: 'root',
      privateKey: keys.privateKey,
      hostKeyFingerprint: fingerprint,
      label: `lab ${name} root@127.0.0.1:${sshPort}`,
      // Emulated CPU: handshakes and commands are many times slower than on hardware.
      connectTimeoutMs: 30_000,
      commandTimeoutMs: 60_000,
      backoff: { initialMs: 200, maxMs: 2_000 },
    });
    await host.connect();
    const sshHost = host;

    const guest: Guest = {
      arch,
      name,
      image,
      sshHost: '127.0.0.1',
      sshPort,
      hostKeyFingerprint: fingerprint,
      privateKeyPath: keys.privateKeyPath,
      serialLogPath,
      namespaces,
      addresses: LAB_ADDRESSES,
      bootSeconds,
      host: sshHost,
      run: (cmd, runOptions) => sshHost.run(cmd, runOptions),
      runIn: (role, cmd, execOptions) => hostExec(inNamespace(namespaces[role], cmd), execOptions),
      sshCommand: () =>
        `ssh -i ${keys.privateKeyPath} -p ${sshPort} -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no root@127.0.0.1   # host key ${fingerprint}`,
      stop,
    };
    running.set(name, guest);
    return guest;
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

/** Every guest this process started and has not stopped. */
export function runningGuests(): Guest[] {
  return [...running.values()];
}

export function serialLogTail(guest: Pick<Guest, 'serialLogPath'>, lines = 40): string {
  if (!existsSync(guest.serialLogPath)) return '(no serial log)';
  return readFileSync(guest.serialLogPath, 'utf8').split('\n').slice(-lines).join('\n');
}
