/**
 * The network around one lab guest (lab-shared design): three namespaces per guest, named by
 * its arch or `<arch>-<instance>` (lab/guest.ts), so guests use the same addresses side by side.
 *
 *   wflab-<arch>       QEMU, its taps (tap-lan, tap-wan) and the bridges br-lan, br-wan
 *   wflab-<arch>-lan   the LAN client: eth0 192.168.1.2/24, fd00:1::2/64, default via the guest
 *   wflab-<arch>-wan   the WAN peer: eth0 203.0.113.1/24, 2001:db8:1::1/64, eth0.100 198.51.100.1/24
 *
 * Veth pairs join each bridge to its client or peer. The peer's VLAN 100 end is not an 8021q
 * device (hosts such as the lab's CI have no 8021q module): eth0.100 is a veth whose frames tc
 * programs tag and untag on the trunk eth0 (lab/peer-vlan.bpf.c); tcpdump on eth0 shows them tagged. Commands in a namespace go through
 * `nsenter --net` rather than `ip netns exec`, which would also remount /sys (see
 * agent/datapath/netns-host.ts).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { labCacheRoot } from './image-cache.js';

export const LAB_ADDRESSES = {
  interfaces: { lan: 'eth0', wan: 'eth1', mgmt: 'eth2', vlan: 'eth1.100' },
  lan: { prefix: 24, guest: '192.168.1.1', client: '192.168.1.2', guest6: 'fd00:1::1', client6: 'fd00:1::2' },
  wan: { prefix: 24, guest: '203.0.113.2', peer: '203.0.113.1', guest6: '2001:db8:1::2', peer6: '2001:db8:1::1' },
  vlan: { id: 100, guest: '198.51.100.2', peer: '198.51.100.1' },
} as const;
export type LabAddresses = typeof LAB_ADDRESSES;

export interface LabNamespaces {
  qemu: string;
  lan: string;
  wan: string;
}

export type NamespaceRole = keyof LabNamespaces;

/** `name`: the guest's name, its arch or `<arch>-<instance>` (lab/guest.ts). */
export function namespacesFor(name: string): LabNamespaces {
  return { qemu: `wflab-${name}`, lan: `wflab-${name}-lan`, wan: `wflab-${name}-wan` };
}

export const TAPS = { lan: 'tap-lan', wan: 'tap-wan' } as const;

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs argv on the host (no shell); never rejects. */
export function hostExec(argv: string[], options: { timeoutMs?: number; input?: string } = {}): Promise<ExecResult> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    const child = execFile(
      file ?? 'false',
      args,
      { timeout: options.timeoutMs ?? 30_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        const err = error as NodeJS.ErrnoException & { code?: unknown; killed?: boolean };
        const why = err.killed ? `timed out after ${options.timeoutMs ?? 30_000} ms` : err.message;
        resolve({
          code: typeof err.code === 'number' ? err.code : null,
          stdout,
          stderr: stderr ? `${stderr}${err.killed ? `\n${why}` : ''}` : why,
        });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** argv run inside network namespace `ns`. */
export function inNamespace(ns: string, argv: string[]): string[] {
  return ['nsenter', `--net=/run/netns/${ns}`, '--', ...argv];
}

async function must(argv: string[]): Promise<string> {
  const r = await hostExec(argv);
  if (r.code !== 0) throw new Error(`lab topology: ${argv.join(' ')} failed (exit ${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

export async function listNamespaces(): Promise<string[]> {
  const r = await hostExec(['ip', 'netns', 'list']);
  return r.stdout
    .split('\n')
    .map((line) => line.split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

/** Deletes the guest's namespaces (and with them every tap, bridge and veth in them). */
export async function destroyTopology(name: string): Promise<void> {
  const names = namespacesFor(name);
  const present = new Set(await listNamespaces());
  if (present.has(names.qemu)) {
    // Persistent taps are removed explicitly rather than left to the namespace's teardown.
    for (const tap of Object.values(TAPS)) await hostExec(['ip', '-n', names.qemu, 'link', 'del', tap]);
  }
  for (const ns of [names.lan, names.wan, names.qemu]) if (present.has(ns)) await must(['ip', 'netns', 'del', ns]);
}

/** Creates namespaces, taps, bridges and veths; the guest's side is configured by its /init. */
export async function createTopology(name: string): Promise<LabNamespaces> {
  const ns = namespacesFor(name);
  const a = LAB_ADDRESSES;
  const q = (...argv: string[]) => must(['ip', '-n', ns.qemu, ...argv]);
  const sysctl = (name: string, ...settings: string[]) =>
    must(inNamespace(name, ['sysctl', '-q', ...settings.flatMap((s) => ['-w', s])]));
  for (const name of [ns.qemu, ns.lan, ns.wan]) {
    await must(['ip', 'netns', 'add', name]);
    await must(['ip', '-n', name, 'link', 'set', 'lo', 'up']);
    // Addresses are usable at once (no duplicate address detection wait in a lab).
    await sysctl(name, 'net.ipv6.conf.all.accept_dad=0', 'net.ipv6.conf.default.accept_dad=0');
  }
  // The QEMU namespace is a plain switch: no addresses of its own on the bridges.
  await sysctl(ns.qemu, 'net.ipv6.conf.default.disable_ipv6=1');
  for (const side of ['lan', 'wan'] as const) {
    const bridge = `br-${side}`;
    const veth = side === 'lan' ? 'lan-client' : 'wan-peer';
    await q('link', 'add', bridge, 'type', 'bridge', 'forward_delay', '0');
    await q('tuntap', 'add', 'dev', TAPS[side], 'mode', 'tap');
    await q('link', 'set', TAPS[side], 'master', bridge);
    await q('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns[side]);
    await q('link', 'set', veth, 'master', bridge);
    for (const dev of [bridge, TAPS[side], veth]) await q('link', 'set', dev, 'up');
  }

  const lan = (...argv: string[]) => must(['ip', '-n', ns.lan, ...argv]);
  await lan('link', 'set', 'eth0', 'address', '02:00:00:00:01:02', 'up');
  await lan('addr', 'add', `${a.lan.client}/${a.lan.prefix}`, 'dev', 'eth0');
  await lan('-6', 'addr', 'add', `${a.lan.client6}/64`, 'dev', 'eth0');
  await lan('route', 'add', 'default', 'via', a.lan.guest);
  await lan('-6', 'route', 'add', 'default', 'via', a.lan.guest6);

  const wan = (...argv: string[]) => must(['ip', '-n', ns.wan, ...argv]);
  await wan('link', 'set', 'eth0', 'address', '02:00:00:00:02:01', 'up');
  await wan('addr', 'add', `${a.wan.peer}/${a.wan.prefix}`, 'dev', 'eth0');
  await wan('-6', 'addr', 'add', `${a.wan.peer6}/64`, 'dev', 'eth0');
  await createPeerVlan(ns.wan);
  await wan('addr', 'add', `${a.vlan.peer}/24`, 'dev', 'eth0.100');
  // No NAT on the guest by default: the peer routes the LAN back through it.
  await wan('route', 'add', `192.168.1.0/${a.lan.prefix}`, 'via', a.wan.guest);
  await wan('-6', 'route', 'add', 'fd00:1::/64', 'via', a.wan.guest6);
  return ns;
}

const PEER_VLAN_SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), 'peer-vlan.bpf.c');

/** peer-vlan.bpf.c built for one direction and the ifindex it redirects to, cached by content. */
async function peerVlanObject(program: 'UNTAG' | 'TAG', ifindex: number): Promise<string> {
  const source = await readFile(PEER_VLAN_SOURCE);
  const digest = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const target = program === 'UNTAG' ? 'ACCESS_IFINDEX' : 'TRUNK_IFINDEX';
  const out = join(labCacheRoot(), 'peer-vlan', `${digest}-${program.toLowerCase()}-${ifindex}.o`);
  if (existsSync(out)) return out;
  await mkdir(dirname(out), { recursive: true });
  const machine = (await hostExec(['gcc', '-dumpmachine'])).stdout.trim() || 'x86_64-linux-gnu';
  const tmp = `${out}.tmp-${process.pid}`;
  await must([
    'clang',
    ...['-O2', '-target', 'bpf', '-Wall', `-I/usr/include/${machine}`],
    ...[`-DPROGRAM_${program}`, `-D${target}=${ifindex}`, `-DVLAN_ID=${LAB_ADDRESSES.vlan.id}`],
    ...['-c', PEER_VLAN_SOURCE, '-o', tmp],
  ]);
  await rename(tmp, out);
  return out;
}

async function ifindexOf(ns: string, dev: string): Promise<number> {
  const [link] = JSON.parse(await must(['ip', '-n', ns, '-j', 'link', 'show', 'dev', dev])) as { ifindex: number }[];
  if (!link) throw new Error(`lab topology: no ${dev} in ${ns}`);
  return link.ifindex;
}

/** eth0.100 in the WAN namespace: an access veth bridged to VLAN 100 on eth0 by tc programs. */
async function createPeerVlan(ns: string): Promise<void> {
  const ip = (...argv: string[]) => must(['ip', '-n', ns, ...argv]);
  const tc = (...argv: string[]) => must(inNamespace(ns, ['tc', ...argv]));
  await ip('link', 'add', 'eth0.100', 'type', 'veth', 'peer', 'name', 'vlan100-tag');
  for (const dev of ['eth0.100', 'vlan100-tag']) await ip('link', 'set', dev, 'up');
  const untag = await peerVlanObject('UNTAG', await ifindexOf(ns, 'vlan100-tag'));
  const tag = await peerVlanObject('TAG', await ifindexOf(ns, 'eth0'));
  for (const [dev, obj] of [
    ['eth0', untag],
    ['vlan100-tag', tag],
  ] as const) {
    await tc('qdisc', 'add', 'dev', dev, 'clsact');
    await tc('filter', 'add', 'dev', dev, 'ingress', 'bpf', 'direct-action', 'object-file', obj, 'section', 'tc');
  }
}
