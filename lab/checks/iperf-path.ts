/**
 * The forwarded TCP path of a lab guest that the offload check and the lab bench drive: iperf3
 * from the LAN client (wflab-<arch>-lan) through the guest to the WAN peer (wflab-<arch>-wan),
 * over the plain WAN only (no VLAN needed). Sets up what the lab's topology leaves out, the
 * peer's route back to the LAN (the lab has no NAT) and a client that sends MTU-sized frames
 * with full checksums (no GSO aggregates from its veth), and puts both back on close. The
 * datapath checks' LabTraffic (wire-traffic.ts) is this path with the VLAN and IPv6 traffic added.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { NetnsHost } from '../../agent/datapath/netns-host.js';
import { LocalHost } from '../../core/host/local-host.js';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';
import { LAB_ADDRESSES as A } from '../topology.js';

/** The lab's addresses the traffic checks use (lab/topology.ts). */
export const PATH_ADDR = {
  client: A.lan.client,
  guestLan: A.lan.guest,
  guestLan6: A.lan.guest6,
  guestWan: A.wan.guest,
  guestWan6: A.wan.guest6,
  peer: A.wan.peer,
  peer6: A.wan.peer6,
  peerVlan: A.vlan.peer,
};
export const IPERF_PORT = 5201;

const local = new LocalHost();

/** The device that holds `address` in `host`'s namespace, if any. */
export async function deviceWith(host: RouterHost, address: string): Promise<string | undefined> {
  const rows = JSON.parse(await runChecked(host, ['ip', '-j', 'addr', 'show'])) as {
    ifname: string;
    addr_info?: { local?: string }[];
  }[];
  return rows.find((r) => r.addr_info?.some((a) => a.local === address))?.ifname;
}

export interface IperfResult {
  mbps: number;
  retransmits: number;
}

export class IperfPath {
  private server: ChildProcess | undefined;
  private undo: (() => Promise<unknown>)[] = [];
  readonly client: NetnsHost;
  readonly peer: NetnsHost;

  protected constructor(
    /** The guest's namespace prefix, wflab-<arch> (lab/topology.ts). */
    readonly namespaces: string,
    readonly clientDev: string,
    readonly peerDev: string,
  ) {
    this.client = new NetnsHost(local, `${namespaces}-lan`);
    this.peer = new NetnsHost(local, `${namespaces}-wan`);
  }

  /** `namespaces`: the guest's namespace prefix, wflab-<arch>. */
  static async open(namespaces: string): Promise<IperfPath> {
    const { client, peer } = await IperfPath.devices(namespaces);
    return IperfPath.prepared(new IperfPath(namespaces, client, peer));
  }

  /** The client's and the peer's devices on the plain path; a missing one is an error naming it. */
  protected static async devices(namespaces: string): Promise<{ client: string; peer: string }> {
    const client = await deviceWith(new NetnsHost(local, `${namespaces}-lan`), PATH_ADDR.client);
    const peer = await deviceWith(new NetnsHost(local, `${namespaces}-wan`), PATH_ADDR.peer);
    if (!client || !peer)
      throw new Error(
        `lab topology ${namespaces}: client ${PATH_ADDR.client} ${client ? 'found' : 'missing'}, peer ${PATH_ADDR.peer} ${peer ? 'found' : 'missing'}`,
      );
    return { client, peer };
  }

  /** `path` set up for traffic, or put back and the error thrown. */
  protected static async prepared<T extends IperfPath>(path: T): Promise<T> {
    try {
      await path.prepare();
    } catch (err) {
      await path.close();
      throw err;
    }
    return path;
  }

  /** Routes back to the LAN (the lab has no NAT), a TCP listener on the peer, a client that segments itself. */
  private async prepare(): Promise<void> {
    for (const [host, prefix, via] of [
      [this.peer, '192.168.1.0/24', PATH_ADDR.guestWan],
      [this.peer, 'fd00:1::/64', PATH_ADDR.guestWan6],
      [this.client, 'default', PATH_ADDR.guestLan],
      [this.client, 'default', PATH_ADDR.guestLan6],
    ] as const) {
      const family = via.includes(':') ? '-6' : '-4';
      const have = await runChecked(host, ['ip', family, 'route', 'show', prefix]);
      if (have.trim()) continue;
      await runChecked(host, ['ip', family, 'route', 'add', prefix, 'via', via]);
      this.undo.push(() => host.run(['ip', family, 'route', 'del', prefix, 'via', via]));
    }
    // Frames from a LAN port arrive MTU-sized with full checksums (as test/e2e/datapath's client):
    // no GSO aggregates or CHECKSUM_PARTIAL seeds from the client's veth.
    await runChecked(this.client, ['ethtool', '-K', this.clientDev, 'tx', 'off', 'tso', 'off', 'gso', 'off']);
    this.undo.push(() => this.client.run(['ethtool', '-K', this.clientDev, 'tx', 'on', 'tso', 'on', 'gso', 'on']));
    this.server = spawn('nsenter', [`--net=/run/netns/${this.peer.netns}`, 'iperf3', '-s', '-p', String(IPERF_PORT)], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 50; i++) {
      const r = await this.peer.run(['ss', '-Htln', `sport = :${IPERF_PORT}`]);
      if (r.stdout.includes(String(IPERF_PORT))) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`iperf3 server in ${this.peer.netns} did not start`);
  }

  /** One iperf3 run from the client to the peer (`reverse`: the peer sends); a failure is an error with iperf3's words. */
  async iperf(seconds: number, reverse = false): Promise<IperfResult> {
    const r = await this.client.run(
      [
        'iperf3',
        '-c',
        PATH_ADDR.peer,
        '-p',
        String(IPERF_PORT),
        '-t',
        String(seconds),
        '-J',
        ...(reverse ? ['-R'] : []),
      ],
      { timeoutMs: (seconds + 60) * 1000 },
    );
    if (r.code !== 0)
      throw new Error(`iperf3 from the LAN client (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(-400)}`);
    const j = JSON.parse(r.stdout) as {
      end?: { sum_received?: { bits_per_second?: number }; sum_sent?: { retransmits?: number } };
    };
    return {
      mbps: (j.end?.sum_received?.bits_per_second ?? 0) / 1e6,
      retransmits: j.end?.sum_sent?.retransmits ?? 0,
    };
  }

  async close(): Promise<void> {
    if (this.server && this.server.exitCode === null) {
      const done = new Promise((res) => this.server!.once('exit', res));
      this.server.kill('SIGKILL');
      await done;
    }
    for (const u of this.undo.reverse()) await u().catch(() => undefined);
    this.undo = [];
  }
}
