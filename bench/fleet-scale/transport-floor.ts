/**
 * The memory floor of one idle agent connection in the transport the controller is built on,
 * without the controller: how much RSS a server process gains per connection when each peer
 * holds one open stream and sends nothing. Side by side in one run, each server in its own
 * process, clients in another:
 *   - h2c:        Node's http2 server, plaintext;
 *   - h2-mtls:    Node's http2 server over TLS, client certificates requested and verified;
 *   - grpc-plain: @grpc/grpc-js server with the agent port's options (AGENT_SERVER_OPTIONS), one
 *                 bidirectional stream per connection, plaintext;
 *   - grpc-mtls:  the same over the controller's own agent credentials (agentServerCredentials).
 * What the controller holds per stream beyond the grpc-mtls row is the controller's own.
 *
 * Run: npm run -s bench:transport-floor   (WF_BENCH_CONNECTIONS, default 4000)
 */
import { credentials as grpcCredentials, Server, ServerCredentials, type ServiceDefinition } from '@grpc/grpc-js';
import { makeGenericClientConstructor } from '@grpc/grpc-js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { newKeyAndCsr } from '../../agent/enrollment/agent-credentials.js';
import { ControllerPki } from '../../server/pki/ca.js';
import { AGENT_SERVER_OPTIONS } from '../../server/agent-gateway/agent-gateway.js';
import { agentServerCredentials } from '../../server/pki/grpc-credentials.js';
import { cpuSeconds } from './process-readings.js';

type Mode = 'h2c' | 'h2-mtls' | 'grpc-plain' | 'grpc-mtls';
const MODES: Mode[] = ['h2c', 'h2-mtls', 'grpc-plain', 'grpc-mtls'];
const CONNECTIONS = Number(process.env.WF_BENCH_CONNECTIONS ?? 4_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One bidirectional method carrying raw bytes: the shape of AgentService.Connect. */
const holdService: ServiceDefinition = {
  hold: {
    path: '/bench.Floor/Hold',
    requestStream: true,
    responseStream: true,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  },
};

/** The PKI the servers present (created by the first process to open it). */
const openPki = (dataDir: string) =>
  ControllerPki.open({ dataDir, serverNames: [], clientCertificateLifetimeSeconds: 86_400 });

/** The one client certificate every bench client of a run uses. */
async function clientMaterials(dataDir: string) {
  const pki = await openPki(dataDir);
  const { keyPem, csrPem } = await newKeyAndCsr('bench-router');
  const issued = await pki.issueClientCertificate(csrPem, 'bench-router');
  return { cert: issued.certificatePem, key: keyPem, ca: pki.trustBundlePem };
}

async function serve(mode: Mode, dataDir: string): Promise<void> {
  const pki = await openPki(dataDir);
  let port: number;
  if (mode === 'h2c' || mode === 'h2-mtls') {
    const server =
      mode === 'h2c'
        ? http2.createServer()
        : http2.createSecureServer({
            cert: pki.serverCertificateChainPem,
            key: pki.serverKeyPem,
            ca: pki.trustBundlePem,
            requestCert: true,
            rejectUnauthorized: false,
          });
    server.on('stream', (stream) => {
      stream.respond({ ':status': 200 });
      stream.write('welcome');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  } else {
    const server = new Server(AGENT_SERVER_OPTIONS);
    server.addService(holdService, {
      hold: (call: { write(b: Buffer): void; on(e: string, f: () => void): void }) => {
        call.write(Buffer.from('welcome'));
        call.on('error', () => {});
      },
    });
    const creds = mode === 'grpc-plain' ? ServerCredentials.createInsecure() : agentServerCredentials(pki);
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', creds, (err, p) => (err ? reject(err) : resolve(p))),
    );
  }
  console.log(`PORT ${port}`);
}

async function connectAll(mode: Mode, dataDir: string, port: number, n: number): Promise<void> {
  const client = await clientMaterials(dataDir);
  const tls = mode === 'h2-mtls' || mode === 'grpc-mtls';
  const Client = makeGenericClientConstructor(holdService, 'Floor');
  const keep: unknown[] = [];
  let open = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      if (mode === 'h2c' || mode === 'h2-mtls') {
        const session = tls
          ? http2.connect(`https://127.0.0.1:${port}`, { ...client, servername: 'localhost' })
          : http2.connect(`http://127.0.0.1:${port}`);
        session.on('error', reject);
        const req = session.request({ ':method': 'POST', ':path': '/hold' }, { endStream: false });
        req.once('data', () => resolve());
        req.on('error', reject);
        keep.push(session, req);
      } else {
        const channel = new Client(
          `127.0.0.1:${port}`,
          tls
            ? grpcCredentials.createSsl(Buffer.from(client.ca), Buffer.from(client.key), Buffer.from(client.cert))
            : grpcCredentials.createInsecure(),
          { 'grpc.use_local_subchannel_pool': 1, 'grpc.ssl_target_name_override': 'localhost' },
        );
        const call = (channel as unknown as { hold(): NodeJS.ReadWriteStream }).hold();
        call.once('data', () => resolve());
        call.on('error', reject);
        call.write(Buffer.from('hello'));
        keep.push(channel, call);
      }
    });
  // A few hundred handshakes in flight at a time: the floor, not a storm, is measured here.
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, n - i) }, one));
    open += Math.min(200, n - i);
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(`UP ${open} ${(cpu.user + cpu.system) / 1000}`);
  await new Promise(() => {}); // held until killed
}

async function rssKiB(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]);
}

function child(args: string[]): { proc: ChildProcess; line: (prefix: string) => Promise<string> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! });
  const waiting: { prefix: string; resolve: (l: string) => void }[] = [];
  lines.on('line', (l) => {
    const i = waiting.findIndex((w) => l.startsWith(w.prefix));
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(l);
  });
  return {
    proc,
    line: (prefix) =>
      new Promise((resolve, reject) => {
        waiting.push({ prefix, resolve });
        proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before "${prefix}"`)));
      }),
  };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wf-transport-floor-'));
  try {
    console.log(
      `${CONNECTIONS} idle connections, one open stream each; server RSS gained per connection, CPU per connect`,
    );
    console.log(
      '| transport | RSS before | RSS with connections | per connection | server CPU per connect | client CPU per connect |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const mode of MODES) {
      const server = child(['serve', mode, dataDir]);
      const port = Number((await server.line('PORT ')).split(' ')[1]);
      await sleep(1_000);
      const before = await rssKiB(server.proc.pid!);
      const cpuBefore = await cpuSeconds(server.proc.pid!);
      const clients = child(['connect', mode, dataDir, String(port), String(CONNECTIONS)]);
      const clientCpuMs = Number((await clients.line('UP ')).split(' ')[2]);
      const serverCpuMs = ((await cpuSeconds(server.proc.pid!)) - cpuBefore) * 1000;
      await sleep(5_000);
      const after = await rssKiB(server.proc.pid!);
      console.log(
        `| ${mode} | ${(before / 1024).toFixed(0)} MiB | ${(after / 1024).toFixed(0)} MiB | ${((after - before) / CONNECTIONS).toFixed(1)} KiB | ${(serverCpuMs / CONNECTIONS).toFixed(2)} ms | ${(clientCpuMs / CONNECTIONS).toFixed(2)} ms |`,
      );
      clients.proc.kill('SIGKILL');
      server.proc.kill('SIGKILL');
      await sleep(500);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const [role, mode, dataDir, port, n] = process.argv.slice(2);
if (role === 'serve') await serve(mode as Mode, dataDir!);
else if (role === 'connect') await connectAll(mode as Mode, dataDir!, Number(port), Number(n));
else await main();
