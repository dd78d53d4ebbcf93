/**
 * `npm run -s bench:agent`: the agent's numbers (docs/BENCHMARKS.md, section "Agent").
 *
 *  1. bundle size (dist/agent/agent.cjs, budget 3 MB)
 *  2. on-router agent idle RSS: the bundle started the way the procd init script starts it
 *     (agent/packaging/openwrt/wrtfleet-agent.init: its start_service runs with procd's and
 *     UCI's shell functions stubbed, and the bench runs the command line and environment it
 *     hands procd), inside a namespace against a controller on a veth, after it connected,
 *     probed and sat idle; with mutual TLS (the default configuration: a client certificate
 *     in the credentials directory, a controller that requires it) and with `insecure '1'`
 *     (plaintext) for contrast (budget 50 MB)
 *  3. proxy RSS per router: the bundle running `proxy` for 1 and for N routers, each a real
 *     SSH session to one sshd in a namespace (MaxSessions/MaxStartups raised), every router
 *     connected to the controller with facts collected and capabilities probed over SSH
 *     (budget 1 MB per router)
 *  4. a full apply over SSH: DesiredState sent -> ApplyResult APPLIED received, four programs
 *     attached with TCX and verified, alternating two configurations so every apply changes
 *     something (budget 1.5 s)
 *  5. 1,000 agents reconnecting after a controller restart: arrival histogram of their Hellos
 *     against the jitter window (ControllerLink reconnect.jitterWindowMs), and without jitter
 *
 * Knobs: WF_BENCH_ROUTERS (200), WF_BENCH_AGENTS (1000), WF_BENCH_JITTER_MS (5000),
 * WF_BENCH_APPLIES (10), WF_BENCH_IDLE_S (10), WF_BENCH_AFTER_APPLY_S (30), WF_BENCH_ONLY,
 * WF_BENCH_NODE_FLAGS (replaces the node flags of the init script and of the systemd unit, for
 * experiments), WF_BENCH_VERBOSE (the on-router agent's stdout and stderr, e.g. with --trace-gc),
 * WF_BENCH_HEAPSNAP (a heap snapshot after each idle measurement; needs
 * --heapsnapshot-signal=SIGUSR2 in WF_BENCH_NODE_FLAGS).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, webcrypto } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ServerCredentials } from '@grpc/grpc-js';
import { ApplyResult_Status, type DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { ControllerLink } from '../../agent/controller-link.js';
import { x509 } from '../../core/x509.js';
import { bundleAgent } from '../../agent/packaging/build.js';
import { FakeController } from '../../test/support/fake-controller.js';
import { sh, SshRouter } from '../../test/support/ssh-router.js';
import { median, percentile } from '../statistics.js';

const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 200);
const AGENTS = Number(process.env.WF_BENCH_AGENTS ?? 1000);
const JITTER_MS = Number(process.env.WF_BENCH_JITTER_MS ?? 5000);
const APPLIES = Number(process.env.WF_BENCH_APPLIES ?? 10);
const IDLE_S = Number(process.env.WF_BENCH_IDLE_S ?? 10);
const AFTER_APPLY_S = Number(process.env.WF_BENCH_AFTER_APPLY_S ?? 30);
const MB = 1024 * 1024;
const INIT_SCRIPT = join(process.cwd(), 'agent/packaging/openwrt/wrtfleet-agent.init');
const PROXY_UNIT = join(process.cwd(), 'agent/packaging/systemd/wrtfleet-proxy.service');
const FLAGS_OVERRIDE = process.env.WF_BENCH_NODE_FLAGS?.split(' ').filter(Boolean);
/** The node flags of the proxy's systemd unit (its ExecStart, between node and agent.cjs). */
const NODE_FLAGS =
  FLAGS_OVERRIDE ??
  readFileSync(PROXY_UNIT, 'utf8')
    .match(/^ExecStart=\S+ (.*?)\s*\S+agent\.cjs proxy /m)![1]!
    .split(' ')
    .filter(Boolean);
const work = mkdtempSync(join(tmpdir(), 'wf-bench-agent-'));
const results: Record<string, unknown> = {};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssParts(pid: number): { anon: number; file: number } {
  const st = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(st.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') };
}

function rssOf(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** The node process under `nsenter` (nsenter execs it, so the pid is the same). */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function stopProc(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  const done = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await Promise.race([done, sleep(5_000)]);
  if (p.exitCode === null) p.kill('SIGKILL');
}

async function benchBundle(): Promise<string> {
  const b = await bundleAgent();
  results.bundle = {
    bytes: b.bytes,
    mib: +(b.bytes / MB).toFixed(2),
    budgetMiB: 3,
    objects: b.objects.length,
    lazySections: b.sections,
    helpersKiB: Object.fromEntries(Object.entries(b.helpers).map(([k, v]) => [k, Math.round(v / 1024)])),
  };
  console.log(
    `bundle: ${(b.bytes / MB).toFixed(2)} MiB (budget 3 MiB), ${b.objects.length} BPF objects, wf-tcx ${Object.entries(
      b.helpers,
    )
      .map(([k, v]) => `${k} ${(v / 1024).toFixed(0)} KiB`)
      .join(', ')}; lazy sections (JavaScript -> stored): ${Object.entries(b.sections)
      .map(([n, s]) => `${n} ${(s.bytes / 1024).toFixed(0)} -> ${(s.storedBytes / 1024).toFixed(0)} KiB`)
      .join(', ')}`,
  );
  return b.bundle;
}

/**
 * What procd would run for the on-router agent: the init script's start_service under sh, with
 * UCI's config_* and procd's procd_* functions stubbed (options come from `uci`, the stubs print
 * what procd would be handed). PROG is pointed at the bundle being measured.
 */
function procdInstance(uci: Record<string, string>, prog: string): { command: string[]; env: Record<string, string> } {
  const stubs = [
    'config_load() { :; }',
    'config_get() { eval "v=\\${UCI_$3-}"; [ -n "$v" ] || v="$4"; eval "$1=\\$v"; }',
    'config_get_bool() { config_get "$@"; eval "v=\\$$1"; case "$v" in 1|on|true|yes|enabled) eval "$1=1" ;; *) eval "$1=0" ;; esac; }',
    'procd_open_instance() { :; }',
    'procd_close_instance() { :; }',
    'procd_set_param() { t=$1; shift; printf \'S\\t%s\\0\' "$t"; for a in "$@"; do printf \'A\\t%s\\t%s\\0\' "$t" "$a"; done; }',
    'procd_append_param() { t=$1; shift; for a in "$@"; do printf \'A\\t%s\\t%s\\0\' "$t" "$a"; done; }',
    '. "$WF_INIT"',
    'PROG="$WF_PROG"',
    'start_service',
  ].join('\n');
  const out = execFileSync('sh', ['-c', stubs], {
    env: {
      PATH: process.env.PATH,
      WF_INIT: INIT_SCRIPT,
      WF_PROG: prog,
      ...Object.fromEntries(Object.entries(uci).map(([k, v]) => [`UCI_${k}`, v])),
    },
    encoding: 'utf8',
  });
  const params: Record<string, string[]> = {};
  for (const rec of out.split('\0').filter(Boolean)) {
    const [kind, type, ...rest] = rec.split('\t');
    if (kind === 'S') params[type!] = [];
    else (params[type!] ??= []).push(rest.join('\t'));
  }
  const env = Object.fromEntries(
    (params.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  let command = params.command ?? [];
  if (!command.length) throw new Error(`${INIT_SCRIPT} start_service started nothing: ${out}`);
  if (FLAGS_OVERRIDE) command = [command[0]!, ...FLAGS_OVERRIDE, ...command.slice(command.indexOf(prog))];
  return { command, env };
}

/** A CA, the controller's server certificate (for `ip`) and a router's client certificate, as the controller's PKI issues them. */
async function benchPki(ip: string, identity: string) {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const subtle = webcrypto.subtle;
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
  const pem = async (k: CryptoKey) =>
    `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await subtle.exportKey('pkcs8', k))
      .toString('base64')
      .match(/.{1,64}/g)!
      .join('\n')}\n-----END PRIVATE KEY-----\n`;
  const caKeys = (await subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=wrtfleet bench CA',
    ...validity,
    signingAlgorithm: alg,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const leaf = async (serialNumber: string, subject: string, extensions: x509.Extension[]) => {
    const keys = (await subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber,
      subject,
      issuer: ca.subject,
      ...validity,
      signingAlgorithm: alg,
      signingKey: caKeys.privateKey,
      publicKey: keys.publicKey,
      extensions,
    });
    return { certPem: cert.toString('pem'), keyPem: await pem(keys.privateKey) };
  };
  return {
    caPem: ca.toString('pem'),
    server: await leaf('02', 'CN=wrtfleet controller', [
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: ip }]),
    ]),
    client: await leaf('03', `CN=${identity}`, [
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ]),
  };
}

/** Where a process's resident pages are (/proc/PID/smaps): the node binary, other files, malloc's heap, the rest of anonymous memory. */
function rssBreakdown(pid: number): Record<string, number> {
  const parts = { nodeBinary: 0, otherFiles: 0, mallocHeap: 0, otherAnon: 0 };
  let key: keyof typeof parts = 'otherAnon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/);
    if (head) {
      const path = head[1]!;
      key =
        path === '[heap]'
          ? 'mallocHeap'
          : path.startsWith('/')
            ? path === process.execPath
              ? 'nodeBinary'
              : 'otherFiles'
            : 'otherAnon';
      continue;
    }
    const rss = line.match(/^Rss:\s+(\d+) kB/);
    if (rss) parts[key] += Number(rss[1]) * 1024;
  }
  return Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, +(v / MB).toFixed(1)]));
}

async function idleRss(bundle: string, mode: 'mtls' | 'plaintext'): Promise<Record<string, unknown>> {
  const tag = randomBytes(2).toString('hex');
  const ns = `wf-bench-onr-${tag}`;
  const hostIf = `wfb${tag}`;
  const identity = 'bench-onr';
  // The namespace reaches the controller over a veth of ours (its WAN, with the default route).
  await sh(['ip', 'netns', 'add', ns]);
  await sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
  await sh(['ip', 'link', 'add', hostIf, 'type', 'veth', 'peer', 'name', 'wan0', 'netns', ns]);
  await sh(['ip', 'addr', 'add', '10.204.0.1/30', 'dev', hostIf]);
  await sh(['ip', 'link', 'set', hostIf, 'up']);
  await sh(['ip', '-n', ns, 'addr', 'add', '10.204.0.2/30', 'dev', 'wan0']);
  await sh(['ip', '-n', ns, 'link', 'set', 'wan0', 'up']);
  await sh(['ip', '-n', ns, 'route', 'add', 'default', 'via', '10.204.0.1']);
  const controller = new FakeController();
  controller.bindHost = '10.204.0.1';
  const dir = join(work, `onr-${mode}`);
  const credentials = join(dir, 'credentials');
  mkdirSync(credentials, { recursive: true, mode: 0o700 });
  if (mode === 'mtls') {
    // What an enrolled router holds (agent/enrollment/agent-credentials.ts), and a controller that, like the real one, requires a client certificate from that CA.
    const pki = await benchPki(controller.bindHost, identity);
    writeFileSync(join(credentials, 'client.key'), pki.client.keyPem, { mode: 0o600 });
    writeFileSync(join(credentials, 'client.crt'), pki.client.certPem);
    writeFileSync(join(credentials, 'ca.crt'), pki.caPem);
    writeFileSync(
      join(credentials, 'identity.json'),
      JSON.stringify({ identity, routerId: `r-${identity}`, receivedAt: Date.now() }),
    );
    controller.credentials = ServerCredentials.createSsl(
      Buffer.from(pki.caPem),
      [{ private_key: Buffer.from(pki.server.keyPem), cert_chain: Buffer.from(pki.server.certPem) }],
      true,
    );
  }
  await controller.start();
  const home = dirname(bundle);
  const { command, env } = procdInstance(
    {
      enabled: '1',
      controller: controller.address,
      identity,
      state_file: join(dir, 'state.json'),
      pin_root: `/sys/fs/bpf/wrtfleet/bench-${ns}`,
      helper: join(home, 'bpf/build/wf-tcx'),
      node: process.execPath,
      credentials_dir: credentials,
      insecure: mode === 'plaintext' ? '1' : '0',
    },
    bundle,
  );
  // procd's own environment is PATH and little else; /usr/lib/wrtfleet is the bundle's directory here.
  const p = spawn('nsenter', [`--net=/run/netns/${ns}`, ...command], {
    stdio: ['ignore', process.env.WF_BENCH_VERBOSE ? 'inherit' : 'ignore', 'pipe'],
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...env, WRTFLEET_HOME: home },
  });
  let err = '';
  p.stderr!.on('data', (d) => {
    err += String(d);
    if (process.env.WF_BENCH_VERBOSE) process.stderr.write(String(d));
  });
  try {
    await until(() => controller.connected(identity), 30_000, `on-router agent (${mode}) to connect (${err})`);
    const samples: number[] = [];
    for (let i = 0; i < IDLE_S; i++) {
      await sleep(1000);
      samples.push(rssOf(p.pid!));
    }
    const idle = samples.at(-1)!;
    const parts = rssParts(p.pid!);
    const r = {
      bytes: idle,
      mib: +(idle / MB).toFixed(1),
      anonMiB: +(parts.anon / MB).toFixed(1),
      fileMiB: +(parts.file / MB).toFixed(1),
      maxMiB: +(Math.max(...samples) / MB).toFixed(1),
      breakdownMiB: rssBreakdown(p.pid!),
      idleSeconds: IDLE_S,
      node: command.slice(1, command.indexOf(bundle)).join(' '),
      env: Object.keys(env).join(' '),
      budgetBytes: 50e6,
    };
    console.log(
      `on-router agent idle RSS, ${mode === 'mtls' ? 'mutual TLS' : 'plaintext'}: ${r.mib} MiB (${(idle / 1e6).toFixed(1)} MB; budget 50 MB) after ${IDLE_S} s idle (max ${r.maxMiB}) = anonymous ${r.anonMiB} + file-backed ${r.fileMiB} MiB; ${JSON.stringify(r.breakdownMiB)}`,
    );
    await heapSnapshot(p);
    if (mode !== 'mtls') return r;
    // The same agent once it manages something: one DesiredState applied (eBPF on its WAN), then idle again.
    const d: DesiredState = {
      profile: 'bench',
      revision: 1,
      spec: { l3Rewrite: { ttl: { value: 64 }, tcpwin: { value: 60000 } } } as DesiredState['spec'],
      confirmWindowSeconds: 0,
      rolloutId: '',
    };
    controller.send(identity, { $case: 'desiredState', value: d });
    await until(() => controller.results(identity).length > 0, 30_000, 'the on-router apply');
    const applied = controller.results(identity)[0]!;
    if (applied.status !== ApplyResult_Status.STATUS_APPLIED)
      throw new Error(`on-router apply: ${applied.status} ${applied.error}`);
    // Applied, the agent polls its WAN and checks drift: RSS saws up and down; say how far.
    await sleep(10_000);
    const after: number[] = [];
    for (let i = 0; i < AFTER_APPLY_S; i++) {
      await sleep(1000);
      after.push(rssOf(p.pid!));
    }
    const sorted = [...after].sort((a, b) => a - b);
    const partsAfter = rssParts(p.pid!);
    const afterApply = {
      medianMiB: +(percentile(sorted, 50) / MB).toFixed(1),
      minMiB: +(sorted[0]! / MB).toFixed(1),
      maxMiB: +(sorted.at(-1)! / MB).toFixed(1),
      window: `10-${10 + AFTER_APPLY_S} s after the apply`,
      anonMiB: +(partsAfter.anon / MB).toFixed(1),
      fileMiB: +(partsAfter.file / MB).toFixed(1),
      breakdownMiB: rssBreakdown(p.pid!),
    };
    console.log(
      `  the same agent 10-${10 + AFTER_APPLY_S} s after applying a profile (eBPF on its WAN): median ${afterApply.medianMiB} MiB (min ${afterApply.minMiB}, max ${afterApply.maxMiB}); at the end anonymous ${afterApply.anonMiB} + file-backed ${afterApply.fileMiB} MiB; ${JSON.stringify(afterApply.breakdownMiB)}`,
    );
    await heapSnapshot(p);
    return { ...r, afterApply };
  } finally {
    await stopProc(p);
    await controller.stop();
    await sh(['ip', 'netns', 'del', ns]).catch(() => undefined);
    await sh(['ip', 'link', 'del', hostIf]).catch(() => undefined);
    await sh([join(process.cwd(), 'bpf/build/wf-tcx'), 'rm', `/sys/fs/bpf/wrtfleet/bench-${ns}`]).catch(
      () => undefined,
    );
  }
}

/** WF_BENCH_HEAPSNAP: the agent writes a heap snapshot (taken after the RSS was read: writing one grows it). */
async function heapSnapshot(p: ChildProcess): Promise<void> {
  if (!process.env.WF_BENCH_HEAPSNAP) return;
  p.kill('SIGUSR2');
  await sleep(5000);
}

async function benchOnRouterIdle(bundle: string): Promise<void> {
  const first = procdInstance({ enabled: '1', controller: 'x:1' }, bundle);
  console.log(
    `on-router agent as the init script starts it: node ${first.command.slice(1, first.command.indexOf(bundle)).join(' ')}; env ${Object.entries(
      first.env,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  results.onRouterIdleRss = { mtls: await idleRss(bundle, 'mtls'), plaintext: await idleRss(bundle, 'plaintext') };
}

async function proxyRss(bundle: string, router: SshRouter, n: number): Promise<{ rss: number; connectMs: number }> {
  const controller = new FakeController();
  await controller.start();
  const cfg = {
    stateDir: join(work, `proxy-state-${n}`),
    routers: Array.from({ length: n }, (_, i) => ({
      host: router.addr.router,
      identity: `bench-proxy-${i}`,
      keyPath: router.clientKeyPath,
      hostKeyFingerprint: router.hostKeyFingerprint,
      // sshd gets n connections: give each a distinct pin root so probes never collide.
      paths: { pinRoot: `/sys/fs/bpf/wrtfleet/r${i}` },
    })),
  };
  const cfgPath = join(work, `proxy-${n}.json`);
  writeFileSync(cfgPath, JSON.stringify(cfg));
  const t0 = Date.now();
  const p = spawn('node', [...NODE_FLAGS, bundle, 'proxy', '--config', cfgPath, '--controller', controller.address], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  p.stderr!.on('data', (d) => (err = (err + String(d)).slice(-2000)));
  try {
    await until(
      () => cfg.routers.every((r) => controller.connected(r.identity)),
      180_000,
      `${n} routers to connect (${err})`,
    );
    const connectMs = Date.now() - t0;
    await sleep(5_000);
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(rssOf(p.pid!));
      await sleep(1000);
    }
    return { rss: Math.max(...samples), connectMs };
  } finally {
    await stopProc(p);
    await controller.stop();
  }
}

async function benchProxy(bundle: string): Promise<void> {
  const router = new SshRouter({ maxSessions: 64, maxStartups: Math.max(ROUTERS * 2, 100), extraConfig: [] });
  await router.start();
  try {
    const one = await proxyRss(bundle, router, 1);
    const many = await proxyRss(bundle, router, ROUTERS);
    const perRouter = (many.rss - one.rss) / (ROUTERS - 1);
    results.proxy = {
      routers: ROUTERS,
      rssOneMiB: +(one.rss / MB).toFixed(1),
      rssManyMiB: +(many.rss / MB).toFixed(1),
      perRouterKiB: Math.round(perRouter / 1024),
      totalPerRouterKiB: Math.round(many.rss / ROUTERS / 1024),
      allConnectedMs: many.connectMs,
      budgetPerRouterMiB: 1,
    };
    console.log(
      `proxy: 1 router ${(one.rss / MB).toFixed(1)} MiB, ${ROUTERS} routers ${(many.rss / MB).toFixed(1)} MiB -> ${(perRouter / 1024).toFixed(0)} KiB per additional router (${(many.rss / ROUTERS / 1024).toFixed(0)} KiB/router overall; budget 1024 KiB); all ${ROUTERS} connected, probed and said Hello in ${many.connectMs} ms`,
    );
  } finally {
    await router.stop();
  }
}

async function benchApply(bundle: string): Promise<void> {
  const router = new SshRouter();
  await router.start();
  const controller = new FakeController();
  await controller.start();
  // The deployed form: the bundle running as a proxy process for this one router.
  const cfgPath = join(work, 'apply.json');
  writeFileSync(
    cfgPath,
    JSON.stringify({
      stateDir: join(work, 'apply-state'),
      routers: [
        {
          host: router.addr.router,
          identity: 'bench-apply',
          keyPath: router.clientKeyPath,
          hostKeyFingerprint: router.hostKeyFingerprint,
        },
      ],
    }),
  );
  const proc = spawn(
    'node',
    [...NODE_FLAGS, bundle, 'proxy', '--config', cfgPath, '--controller', controller.address],
    { stdio: ['ignore', 'ignore', 'ignore'] },
  );
  try {
    await until(() => controller.connected('bench-apply'), 30_000, 'agent connected');
    const times: number[] = [];
    const phases: Record<string, number[]> = {};
    for (let i = 1; i <= APPLIES; i++) {
      const d: DesiredState = {
        profile: 'bench',
        revision: i,
        spec: {
          l3Rewrite: { ttl: { value: 64 + (i % 2) }, tcpwin: { value: 60000 + (i % 2) } },
        } as DesiredState['spec'],
        confirmWindowSeconds: 0,
        rolloutId: '',
      };
      const before = controller.results('bench-apply').length;
      const t0 = performance.now();
      controller.send('bench-apply', { $case: 'desiredState', value: d });
      await until(() => controller.results('bench-apply').length > before, 30_000, `apply ${i}`);
      const ms = performance.now() - t0;
      const r = controller.results('bench-apply')[before]!;
      if (r.status !== ApplyResult_Status.STATUS_APPLIED) throw new Error(`apply ${i}: ${r.status} ${r.error}`);
      times.push(ms);
      if (i === 1) results.firstApplyPhasesMs = (r.evidence as { timingsMs: unknown }).timingsMs;
      for (const [k, v] of Object.entries((r.evidence as { timingsMs: Record<string, number> }).timingsMs))
        (phases[k] ??= []).push(v);
      await sleep(200); // let the ConfirmApply land before the next revision
    }
    const sorted = [...times].sort((a, b) => a - b);
    results.applyOverSsh = {
      applies: APPLIES,
      firstMs: Math.round(times[0]!),
      medianMs: Math.round(percentile(sorted, 50)),
      maxMs: Math.round(sorted.at(-1)!),
      phasesMedianMs: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, median(v)])),
      budgetMs: 1500,
    };
    console.log(`first apply phases: ${JSON.stringify(results.firstApplyPhasesMs)}`);
    console.log(
      `full apply over SSH (DesiredState -> APPLIED, 4 programs TCX + verify): first ${Math.round(times[0]!)} ms, median ${Math.round(percentile(sorted, 50))} ms, max ${Math.round(sorted.at(-1)!)} ms over ${APPLIES} (budget 1500 ms); phases (median) ${JSON.stringify((results.applyOverSsh as { phasesMedianMs: unknown }).phasesMedianMs)}`,
    );
  } finally {
    await stopProc(proc);
    await controller.stop();
    await router.stop();
  }
}

async function reconnectHistogram(jitterWindowMs: number): Promise<{
  spreadMs: number;
  p50: number;
  p90: number;
  maxPerBucket: number;
  peakPer100ms: number;
  firstMs: number;
  lastMs: number;
  buckets: number[];
  bucketMs: number;
}> {
  const controller = new FakeController();
  await controller.start();
  const links: ControllerLink[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const identity = `bench-rc-${i}`;
    const link = new ControllerLink({
      address: controller.address,
      reconnect: { jitterWindowMs, initialDelayMs: 500, maxDelayMs: 5_000 },
      hello: async () => ({
        router: { identity, name: identity },
        agent: { version: '0.1.0', placement: 2, proxyHost: '' },
        facts: undefined,
        capabilities: undefined,
        applied: undefined,
        live: undefined,
      }),
    });
    links.push(link);
    link.start();
  }
  try {
    await until(() => links.every((l) => l.sessions === 1), 120_000, 'all agents connected');
    // A restart: the old process goes away and a new one listens again on the same port at once.
    const port = controller.port;
    await controller.stop();
    const restartedAt = Date.now();
    controller.hellos.length = 0;
    await controller.start(port);
    await until(() => links.every((l) => l.sessions === 2), Math.max(60_000, jitterWindowMs * 4), 'all agents back');
    const arrivals = controller.hellos.map((h) => h.at - restartedAt).sort((a, b) => a - b);
    const bucketMs = Math.max(100, Math.round(jitterWindowMs / 10) || 100);
    const buckets: number[] = [];
    for (const a of arrivals) {
      const b = Math.max(0, Math.floor(a / bucketMs));
      buckets[b] = (buckets[b] ?? 0) + 1;
    }
    for (let i = 0; i < buckets.length; i++) buckets[i] ??= 0;
    const per100: number[] = [];
    for (const a of arrivals) per100[Math.floor(a / 100)] = (per100[Math.floor(a / 100)] ?? 0) + 1;
    return {
      spreadMs: arrivals.at(-1)! - arrivals[0]!,
      p50: percentile(arrivals, 50),
      p90: percentile(arrivals, 90),
      maxPerBucket: Math.max(...buckets),
      peakPer100ms: Math.max(...Array.from(per100, (x) => x ?? 0)),
      firstMs: arrivals[0]!,
      lastMs: arrivals.at(-1)!,
      buckets,
      bucketMs,
    };
  } finally {
    await Promise.all(links.map((l) => l.stop()));
    await controller.stop();
  }
}

async function benchReconnect(): Promise<void> {
  const jit = await reconnectHistogram(JITTER_MS);
  const none = await reconnectHistogram(0);
  results.reconnect = { agents: AGENTS, jitterWindowMs: JITTER_MS, withJitter: jit, withoutJitter: none };
  const fmt = (h: typeof jit) =>
    `${h.buckets.map((b, i) => `${i * h.bucketMs}-${(i + 1) * h.bucketMs}ms:${b}`).join(' ')}`;
  console.log(
    `reconnect of ${AGENTS} agents after a controller restart, jitter window ${JITTER_MS} ms: first ${jit.firstMs} ms, last ${jit.lastMs} ms after the restart, p50 ${jit.p50} ms, p90 ${jit.p90} ms, peak ${jit.peakPer100ms} Hellos per 100 ms`,
  );
  console.log(`  histogram: ${fmt(jit)}`);
  console.log(
    `without jitter (window 0): first ${none.firstMs} ms, last ${none.lastMs} ms, peak ${none.peakPer100ms} Hellos per 100 ms (as fast as this one process can accept): ${fmt(none)}`,
  );
}

const only = (process.env.WF_BENCH_ONLY ?? 'bundle,idle,proxy,apply,reconnect').split(',');
try {
  const bundle = only.some((x) => ['bundle', 'idle', 'proxy', 'apply'].includes(x)) ? await benchBundle() : '';
  if (only.includes('idle')) await benchOnRouterIdle(bundle);
  if (only.includes('apply')) await benchApply(bundle);
  if (only.includes('proxy')) await benchProxy(bundle);
  if (only.includes('reconnect')) await benchReconnect();
  // Merged into the previous results, so a partial run (WF_BENCH_ONLY) replaces only what it measured.
  const file = join(process.cwd(), 'bench/agent/results.json');
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    /* first run */
  }
  writeFileSync(
    file,
    `${JSON.stringify({ ...previous, at: new Date().toISOString(), kernel: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim(), node: process.version, ...results }, null, 2)}\n`,
  );
  console.log('results: bench/agent/results.json');
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
