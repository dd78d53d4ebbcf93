/** The on-router agent's idle memory, started the way the procd init script starts it. */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, webcrypto } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ServerCredentials } from '@grpc/grpc-js';
import { ApplyResult_Status, type DesiredState } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { x509 } from '../../core/x509.js';
import { FakeController } from '../../test/support/fake-controller.js';
import { sh } from '../../test/support/ssh-router.js';
import { percentile } from '../statistics.js';
import { IDLE_S, AFTER_APPLY_S, MB, INIT_SCRIPT, FLAGS_OVERRIDE, work, results } from './settings.js';
import { sleep, rssParts, rssOf, until, stopProc, rssBreakdown, heapSnapshot } from './process.js';

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
export async function benchPki(ip: string, identity: string) {
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

export async function benchOnRouterIdle(bundle: string): Promise<void> {
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
