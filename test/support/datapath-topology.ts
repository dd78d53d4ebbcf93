/**
 * Three network namespaces joined by veth pairs, all created and destroyed by the test:
 *
 *   client (cl0 10.213.1.2) ── (lan0 10.213.1.1) router (wan0 10.213.2.1) ── (up0 10.213.2.2) peer
 *
 * The router forwards client traffic and has its IPv4 default route via the peer on wan0,
 * so wan0 is the eligible interface and lan0 is not. Every address lives inside these
 * namespaces; nothing is sent anywhere else. Names carry a random suffix (wf-dp-<rand>).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalHost } from '../../core/host/local-host.js';
import { NetnsHost } from '../../agent/datapath/netns-host.js';
import { capturePackets, whileTcpdump } from '../../lab/wire/capture.js';
import type { PcapPacket } from '../../lab/wire/pcap.js';

export const ADDR = {
  client: '10.213.1.2',
  routerLan: '10.213.1.1',
  routerWan: '10.213.2.1',
  peer: '10.213.2.2',
};

/** IPv6 on the WAN link, added by addIpv6 (the hop-limit rewrite and neighbour discovery). */
export const ADDR6 = { router: 'fd21:3::1', peer: 'fd21:3::2' };

const local = new LocalHost();

async function sh(argv: string[], timeoutMs = 30_000): Promise<string> {
  const r = await local.run(argv, { timeoutMs });
  if (r.code !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

export class Topology {
  readonly id = randomBytes(3).toString('hex');
  readonly ns = { router: `wf-dp-${this.id}-r`, peer: `wf-dp-${this.id}-p`, client: `wf-dp-${this.id}-c` };
  readonly router = new NetnsHost(local, this.ns.router);
  readonly peer = new NetnsHost(local, this.ns.peer);
  readonly client = new NetnsHost(local, this.ns.client);
  /** Our own pin root, so parallel runs and a real agent never share state. */
  readonly pinRoot = `/sys/fs/bpf/wrtfleet/test-${this.id}`;
  readonly work = mkdtempSync(join(tmpdir(), 'wf-dp-'));
  private servers: ChildProcess[] = [];

  async create(): Promise<void> {
    for (const n of Object.values(this.ns)) {
      await sh(['ip', 'netns', 'add', n]);
      await sh(['ip', '-n', n, 'link', 'set', 'lo', 'up']);
    }
    await sh([
      'ip',
      'link',
      'add',
      'wan0',
      'netns',
      this.ns.router,
      'type',
      'veth',
      'peer',
      'name',
      'up0',
      'netns',
      this.ns.peer,
    ]);
    await sh([
      'ip',
      'link',
      'add',
      'lan0',
      'netns',
      this.ns.router,
      'type',
      'veth',
      'peer',
      'name',
      'cl0',
      'netns',
      this.ns.client,
    ]);
    const addr = async (ns: string, dev: string, a: string) => {
      await sh(['ip', '-n', ns, 'addr', 'add', `${a}/24`, 'dev', dev]);
      await sh(['ip', '-n', ns, 'link', 'set', dev, 'up']);
    };
    await addr(this.ns.router, 'wan0', ADDR.routerWan);
    await addr(this.ns.router, 'lan0', ADDR.routerLan);
    await addr(this.ns.peer, 'up0', ADDR.peer);
    await addr(this.ns.client, 'cl0', ADDR.client);
    await sh(['ip', '-n', this.ns.client, 'route', 'add', 'default', 'via', ADDR.routerLan]);
    await sh(['ip', '-n', this.ns.peer, 'route', 'add', '10.213.1.0/24', 'via', ADDR.routerWan]);
    await sh(['ip', 'netns', 'exec', this.ns.router, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
  }

  async addDefaultRoute(): Promise<void> {
    await sh(['ip', '-n', this.ns.router, 'route', 'replace', 'default', 'via', ADDR.peer, 'dev', 'wan0']);
  }

  /** ADDR6 on wan0 and up0, without duplicate address detection (usable at once). */
  async addIpv6(): Promise<void> {
    await sh(['ip', '-n', this.ns.router, 'addr', 'add', `${ADDR6.router}/64`, 'dev', 'wan0', 'nodad']);
    await sh(['ip', '-n', this.ns.peer, 'addr', 'add', `${ADDR6.peer}/64`, 'dev', 'up0', 'nodad']);
  }

  /** The hop limits of three ICMPv6 echo requests from the router as they arrive at the peer. */
  async ping6HopLimits(): Promise<number[]> {
    let out = '';
    let ping: Awaited<ReturnType<NetnsHost['run']>> | undefined;
    await this.whileTcpdump(
      ['-n', '-v', '-l', 'icmp6 and ip6[40] == 128'],
      async () => void (ping = await this.router.run(['ping', '-6', '-c', '3', '-i', '0.2', '-W', '2', ADDR6.peer])),
      (text) => (out += text),
    );
    if (ping!.code !== 0) throw new Error(`ping -6: ${ping!.stdout}${ping!.stderr}`);
    return [...out.matchAll(/hlim (\d+)/g)].map((m) => Number(m[1]));
  }

  /**
   * Whether the router still finds the peer by neighbour discovery: its neighbour entry is
   * flushed, so the next ping first sends a solicitation, which the peer drops unless it
   * arrives with hop limit 255 (RFC 4861).
   */
  async neighbourDiscoveryWorks(): Promise<boolean> {
    await sh(['ip', '-n', this.ns.router, '-6', 'neigh', 'flush', 'dev', 'wan0']);
    const ping = await this.router.run(['ping', '-6', '-c', '1', '-W', '4', ADDR6.peer]);
    return ping.code === 0;
  }

  async delDefaultRoute(): Promise<void> {
    await sh(['ip', '-n', this.ns.router, 'route', 'del', 'default']);
  }

  /** ethtool -K on a router-side device (tx csum, tso, gso). */
  async offload(ns: string, dev: string, on: boolean): Promise<void> {
    const v = on ? 'on' : 'off';
    await sh(['nsenter', `--net=/run/netns/${ns}`, 'ethtool', '-K', dev, 'tx', v, 'tso', v, 'gso', v]);
  }

  async startIperfServer(): Promise<void> {
    const p = spawn('nsenter', [`--net=/run/netns/${this.ns.peer}`, 'iperf3', '-s', '-B', ADDR.peer, '-p', '5201'], {
      stdio: 'ignore',
    });
    this.servers.push(p);
    for (let i = 0; i < 50; i++) {
      const r = await this.peer.run(['ss', '-Htln', 'sport = :5201']);
      if (r.stdout.includes('5201')) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('iperf3 server did not start');
  }

  /** Runs `fn` while tcpdump listens at the peer's up0 (lab/wire/capture.ts). */
  private whileTcpdump(args: string[], fn: () => Promise<void>, onOutput?: (text: string) => void): Promise<void> {
    return whileTcpdump({ netns: this.ns.peer, dev: 'up0' }, args, fn, onOutput);
  }

  /** Runs `fn` while tcpdump captures IPv4 packets arriving at the peer; returns them. */
  capture(fn: () => Promise<void>, _label: string): Promise<PcapPacket[]> {
    return capturePackets({ netns: this.ns.peer, dev: 'up0' }, 'ip', fn);
  }

  /** ping + iperf3 (handshakes and bulk) from the router itself and from the client. */
  async traffic(bytes = '6M'): Promise<void> {
    for (const h of [this.router, this.client]) {
      const p = await h.run(['ping', '-c', '3', '-i', '0.2', '-W', '2', ADDR.peer]);
      if (p.code !== 0) throw new Error(`ping from ${h.description}: ${p.stdout}${p.stderr}`);
      const r = await h.run(['iperf3', '-c', ADDR.peer, '-p', '5201', '-n', bytes, '-J'], { timeoutMs: 30_000 });
      if (r.code !== 0) throw new Error(`iperf3 from ${h.description}: ${r.stdout.slice(-300)}${r.stderr}`);
    }
  }

  async destroy(): Promise<void> {
    for (const s of this.servers) if (s.exitCode === null) s.kill('SIGKILL');
    for (const n of Object.values(this.ns)) {
      // processes we started in the namespace (iperf3, tcpdump) die with their parents above;
      // the namespace goes away once nothing holds it
      await local.run(['ip', 'netns', 'del', n]);
    }
    await local.run([join(process.cwd(), 'bpf/build/wf-tcx'), 'rm', this.pinRoot]);
    rmSync(this.work, { recursive: true, force: true });
  }
}
