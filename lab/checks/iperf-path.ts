/**
 * The forwarded TCP path of a lab guest that the offload check and the lab bench drive: iperf3
 * from the LAN client (wflab-<arch>-lan) through the guest to the WAN peer (wflab-<arch>-wan),
 * over the plain WAN only (no VLAN needed). Sets up what the lab's topology leaves out, the
 * peer's route back to the LAN (the lab has no NAT) and a client that sends MTU-sized frames
 * with full checksums (no GSO aggregates from its veth), and puts both back on close.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { NetnsHost } from '../../agent/datapath/netns-host.js';
import { LocalHost } from '../../core/host/local-host.js';
import { runChecked, type RouterHost } from '../../core/host/router-host.js';

export const PATH_ADDR = {
  client: '192.168.1.2',
  guestLan: '192.168.1.1',
  guestWan: '203.0.113.2',
  peer: '203.0.113.1',
};
export const IPERF_PORT = 5201;

const local = new LocalHost();

async function devWith(host: RouterHost, address: string): Promise<string> {
  const rows = JSON.parse(await runChecked(host, ['ip', '-j', 'addr', 'show'])) as {
    ifname: string;
    addr_info?: { local?: string }[];
  }[];
  const dev = rows.find((r) => r.addr_info?.some((a) => a.local === address))?.ifname;
  if (!dev) throw new Error(`lab topology: no device with ${address} in ${host.description}`);
  return dev;
}

export interface IperfResult {
  mbps: number;
  retransmits: number;
}

export class IperfPath {
  private server: ChildProcess | undefined;
  private undo: (() => Promise<unknown>)[] = [];

  private constructor(
    readonly client: NetnsHost,
    readonly peer: NetnsHost,
    readonly clientDev: string,
    readonly peerDev: string,
  ) {}

  /** `namespaces`: the prefix of the guest's namespaces (default wflab-<arch>). */
  static async open(arch: string, namespaces = `wflab-${arch}`): Promise<IperfPath> {
    const client = new NetnsHost(local, `${namespaces}-lan`);
    const peer = new NetnsHost(local, `${namespaces}-wan`);
    const path = new IperfPath(
      client,
      peer,
      await devWith(client, PATH_ADDR.client),
      await devWith(peer, PATH_ADDR.peer),
    );
    try {
      await path.prepare();
    } catch (err) {
      await path.close();
      throw err;
    }
    return path;
  }

  private async prepare(): Promise<void> {
    const back = await runChecked(this.peer, ['ip', '-4', 'route', 'show', '192.168.1.0/24']);
    if (!back.trim()) {
      await runChecked(this.peer, ['ip', 'route', 'add', '192.168.1.0/24', 'via', PATH_ADDR.guestWan]);
      this.undo.push(() => this.peer.run(['ip', 'route', 'del', '192.168.1.0/24', 'via', PATH_ADDR.guestWan]));
    }
    const def = await runChecked(this.client, ['ip', '-4', 'route', 'show', 'default']);
    if (!def.trim()) {
      await runChecked(this.client, ['ip', 'route', 'add', 'default', 'via', PATH_ADDR.guestLan]);
      this.undo.push(() => this.client.run(['ip', 'route', 'del', 'default', 'via', PATH_ADDR.guestLan]));
    }
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
