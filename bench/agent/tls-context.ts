/**
 * The agent's CPU per connection attempt with mutual TLS, two ways of giving grpc-js the
 * agent's certificate, side by side in one run:
 *  - certificate-provider credentials (what agents used before): grpc-js builds a TLS context
 *    from the PEMs before each attempt, and again for the handshake;
 *  - one context per certificate (`AgentCredentials.channelCredentials` now):
 *    `credentials.createFromSecureContext`.
 * Each attempt is what a link does after a controller restart: a new channel, a stream, the
 * attempt failing, the channel closed. Against a refusing port (controller still down) and
 * against a TLS listener that accepts the handshake and then closes (controller up, busy).
 *
 * Run: npm run -s bench:agent-tls   (knobs: WF_BENCH_ATTEMPTS (300))
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createSecureContext, createServer as createTlsServer } from 'node:tls';
import { credentials, experimental, type ChannelCredentials } from '@grpc/grpc-js';
import { AgentServiceClient } from '../../proto/gen/wrtfleet/agent/v1/agent.js';

const ATTEMPTS = Number(process.env.WF_BENCH_ATTEMPTS ?? 300);

// A P-256 CA and a client certificate, as enrollment makes them (openssl here, for brevity).
const dir = mkdtempSync(path.join(os.tmpdir(), 'wf-tls-bench-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
openssl('req', '-new', '-x509', '-key', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=bench-ca');
openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'agent.key');
openssl('req', '-new', '-key', 'agent.key', '-out', 'agent.csr', '-subj', '/CN=bench-agent');
openssl(
  'x509',
  '-req',
  '-in',
  'agent.csr',
  '-CA',
  'ca.crt',
  '-CAkey',
  'ca.key',
  '-CAcreateserial',
  '-out',
  'agent.crt',
  '-days',
  '1',
);
const pem = (name: string) => readFileSync(path.join(dir, name));
const [caPem, keyPem, certPem] = [pem('ca.crt'), pem('agent.key'), pem('agent.crt')];

const provider: experimental.CertificateProvider = {
  addCaCertificateListener: (l) => l({ caCertificate: caPem }),
  removeCaCertificateListener: () => undefined,
  addIdentityCertificateListener: (l) => l({ certificate: certPem, privateKey: keyPem }),
  removeIdentityCertificateListener: () => undefined,
};
const ways: [string, () => ChannelCredentials][] = [
  ['certificate provider (before)', () => experimental.createCertificateProviderChannelCredentials(provider, provider)],
  [
    'one context per certificate (now)',
    (() => {
      const shared = credentials.createFromSecureContext(
        createSecureContext({ ca: caPem, key: keyPem, cert: certPem }),
      );
      return () => shared;
    })(),
  ],
];

/** One attempt: a new channel, a stream, wait for it to fail, close the channel. */
function attempt(address: string, creds: ChannelCredentials): Promise<void> {
  return new Promise((resolve) => {
    const client = new AgentServiceClient(address, creds, { 'grpc.use_local_subchannel_pool': 1 });
    const stream = client.connect();
    const done = () => {
      client.close();
      resolve();
    };
    stream.on('error', done);
    stream.on('end', done);
  });
}

async function listen(server: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }) {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(server.address() as { port: number }).port}`;
}

// Refusing: a port that was just free. Handshaking: TLS completes, then the server hangs up.
const probe = createNetServer();
const refusing = await listen(probe);
await new Promise((r) => probe.close(r));
const tlsServer = createTlsServer({ key: keyPem, cert: certPem, ca: caPem, ALPNProtocols: ['h2'] }, (s) => s.destroy());
const handshaking = await listen(tlsServer);

console.log(`${ATTEMPTS} attempts per cell; agent CPU (user + system) per attempt`);
for (const [target, address] of [
  ['controller down (connection refused)', refusing],
  ['TLS handshake, then closed', handshaking],
] as const) {
  const cells: string[] = [];
  for (const [name, creds] of ways) {
    for (let i = 0; i < 20; i++) await attempt(address, creds()); // warm-up
    const before = process.cpuUsage();
    for (let i = 0; i < ATTEMPTS; i++) await attempt(address, creds());
    const used = process.cpuUsage(before);
    cells.push(`${name} ${((used.user + used.system) / 1000 / ATTEMPTS).toFixed(2)} ms`);
  }
  console.log(`${target}: ${cells.join(', ')}`);
}
tlsServer.close();
rmSync(dir, { recursive: true, force: true });
