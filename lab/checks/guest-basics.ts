/**
 * The first lab check: is the guest the router the other checks assume? Its kernel and CPU
 * (arch, byte order), the BPF JIT switch, bpffs, and the network around it: the LAN client
 * reaches the guest, the guest reaches the WAN peer (also on VLAN 100), and a TCP stream
 * from the LAN client reaches the WAN peer forwarded through the guest.
 */
import type { Guest } from '../guest.js';
import { resultOf, type CheckResult, type CheckStep, type LabCheck } from './lab-check.js';

const EXPECTED_ENDIAN = { mipsel: 'little', mips: 'big' } as const;

/** Average round trip in ms from ping's summary (iputils and busybox both print min/avg/max). */
function pingAverage(output: string): number | undefined {
  const m = /min\/avg\/max[^=]*=\s*[\d.]+\/([\d.]+)\//.exec(output);
  return m ? Number(m[1]) : undefined;
}

function step(name: string, ok: boolean, detail: string): CheckStep {
  return { name, ok, detail };
}

async function kernelSteps(guest: Guest): Promise<CheckStep[]> {
  const uname = await guest.run(['uname', '-r', '-m']);
  const [release = '', machine = ''] = uname.stdout.trim().split(/\s+/);
  // Two probes that must agree: the ELF header of a running binary (EI_DATA: 1 little, 2 big)
  // and how the CPU reads two bytes as one 16-bit word.
  const probe = await guest.run([
    'sh',
    '-c',
    "head -c 6 /proc/self/exe | tail -c 1 | od -An -tu1; printf '\\001\\002' | od -An -tx2",
  ]);
  const [elfData, word] = probe.stdout.trim().split(/\s+/);
  const elfEndian = elfData === '1' ? 'little' : elfData === '2' ? 'big' : `? (${elfData})`;
  const wordEndian = word === '0201' ? 'little' : word === '0102' ? 'big' : `? (${word})`;
  const cpu = /cpu model\s*:\s*(.*)/.exec((await guest.host.readFile('/proc/cpuinfo')) ?? '')?.[1] ?? '?';
  const expected = EXPECTED_ENDIAN[guest.arch];
  return [
    step(
      'kernel',
      uname.code === 0 && release.startsWith('6.1') && machine === 'mips',
      `kernel ${release} ${machine} (${cpu})`,
    ),
    step(
      'endianness',
      elfEndian === expected && wordEndian === expected,
      `${elfEndian}-endian (ELF ${elfEndian}, word ${wordEndian}, want ${expected})`,
    ),
  ];
}

async function jitStep(guest: Guest): Promise<CheckStep> {
  const path = '/proc/sys/net/core/bpf_jit_enable';
  const read = async () => (await guest.host.readFile(path))?.trim();
  const write = (value: string) => guest.run(['sh', '-c', `echo ${value} > ${path}`]);
  const original = await read();
  if (original === undefined) return step('bpf_jit_enable', false, `${path} is missing`);
  const seen: string[] = [];
  for (const value of ['0', '1', '0', original]) {
    await write(value);
    seen.push((await read()) ?? '?');
  }
  const ok = seen.join(',') === `0,1,0,${original}`;
  return step('bpf_jit_enable', ok, `bpf_jit_enable ${original} -> ${seen.join(' -> ')}`);
}

async function bpffsStep(guest: Guest): Promise<CheckStep> {
  const mounts = (await guest.host.readFile('/proc/mounts')) ?? '';
  const ok = mounts.split('\n').some((line) => /^\S+ \/sys\/fs\/bpf bpf /.test(line));
  return step('bpffs', ok, ok ? 'bpffs on /sys/fs/bpf' : 'no bpf mount on /sys/fs/bpf');
}

async function pingSteps(guest: Guest, numbers: Record<string, number>): Promise<CheckStep[]> {
  const a = guest.addresses;
  const steps: CheckStep[] = [];
  const record = (name: string, ok: boolean, output: string, target: string) => {
    const avg = pingAverage(output);
    if (avg !== undefined) numbers[`${name}RttMs`] = avg;
    steps.push(
      step(name, ok, ok ? `${target} ${avg ?? '?'} ms` : `${target}: ${output.trim().split('\n').slice(-2).join(' ')}`),
    );
  };
  for (const [name, target] of [
    ['lanPingsGuest', a.lan.guest],
    ['lanPingsGuest6', a.lan.guest6],
  ] as const) {
    const r = await guest.runIn('lan', ['ping', '-c', '3', '-i', '0.2', '-W', '3', target]);
    record(name, r.code === 0, r.stdout + r.stderr, target);
  }
  for (const [name, target] of [
    ['guestPingsWan', a.wan.peer],
    ['guestPingsWan6', a.wan.peer6],
    ['guestPingsVlan', a.vlan.peer],
  ] as const) {
    const r = await guest.run(['ping', '-c', '3', '-W', '3', target]);
    record(name, r.code === 0, r.stdout + r.stderr, target);
  }
  return steps;
}

/** A 3-second iperf3 stream from the LAN client to the WAN peer, routed by the guest. */
async function forwardedTcpStep(guest: Guest, numbers: Record<string, number>): Promise<CheckStep> {
  const peer = guest.addresses.wan.peer;
  // The guest's WAN transmit counter must grow by at least what the peer received: the stream
  // crossed the guest, not some path around it.
  const wanTxBytes = async () =>
    Number((await guest.host.readFile(`/sys/class/net/${guest.addresses.interfaces.wan}/statistics/tx_bytes`)) ?? NaN);
  const txBefore = await wanTxBytes();
  const server = guest.runIn('wan', ['iperf3', '-s', '-1', '-B', peer, '-p', '5201'], { timeoutMs: 60_000 });
  let client = { code: null as number | null, stdout: '', stderr: '' };
  for (let attempt = 0; attempt < 20; attempt++) {
    await new Promise((r) => setTimeout(r, 250));
    client = await guest.runIn('lan', ['iperf3', '-c', peer, '-p', '5201', '-t', '3', '-J'], { timeoutMs: 45_000 });
    // The server may not listen yet: only "connection refused" is worth a retry.
    if (client.code === 0 || !/refused/i.test(client.stdout + client.stderr)) break;
  }
  await server;
  if (client.code !== 0) {
    const why = [/"error":\s*"([^"]*)"/.exec(client.stdout)?.[1], client.stderr.trim()].filter(Boolean).join(': ');
    return step('forwardedTcp', false, `LAN ${guest.addresses.lan.client} -> WAN ${peer}: ${why}`);
  }
  const report = JSON.parse(client.stdout) as {
    end?: { sum_received?: { bits_per_second?: number; bytes?: number } };
    start?: { connecting_to?: unknown; tcp_mss_default?: number };
  };
  const received = report.end?.sum_received?.bytes ?? 0;
  const forwarded = (await wanTxBytes()) - txBefore;
  const mbps = (report.end?.sum_received?.bits_per_second ?? 0) / 1e6;
  numbers.forwardedTcpMbps = Math.round(mbps * 10) / 10;
  const ok = received > 0 && forwarded >= received;
  return step(
    'forwardedTcp',
    ok,
    `LAN -> WAN TCP through the guest ${numbers.forwardedTcpMbps} Mbit/s (peer received ${received} B, guest ${guest.addresses.interfaces.wan} sent ${forwarded} B)`,
  );
}

export const guestBasics: LabCheck = {
  name: 'guest-basics',
  arches: ['mipsel', 'mips'],
  async run(guest: Guest): Promise<CheckResult> {
    const numbers: Record<string, number> = { bootSeconds: guest.bootSeconds };
    const steps = [
      ...(await kernelSteps(guest)),
      await jitStep(guest),
      await bpffsStep(guest),
      ...(await pingSteps(guest, numbers)),
      await forwardedTcpStep(guest, numbers),
    ];
    return resultOf(steps, numbers);
  },
};
