import { createHash, createPublicKey, webcrypto, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createSecureContext, connect as tlsConnect, type DetailedPeerCertificate } from 'node:tls';
import {
  credentials as grpcCredentials,
  Metadata,
  status as grpcStatus,
  type ChannelCredentials,
  type ServiceError,
} from '@grpc/grpc-js';
import { AgentServiceClient, type EnrollResponse, type Renewed } from '../../proto/gen/wrtfleet/agent/v1/agent.js';
import { concurrencyGate } from '../../core/concurrency-gate.js';
import { controllerAddresses } from '../reconnect-policy.js';
import { CONTROLLER_VERIFY_OPTIONS, controllerChannelOptions } from './controller-server-name.js';

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** What an enrolled agent holds for one router: its key, its certificate, the CAs it trusts. */
export interface AgentIdentity {
  identity: string;
  routerId: string;
  keyPem: string;
  certificatePem: string;
  /** The controller's trust bundle (current CA, plus next/previous during a rotation). */
  caPem: string;
  /** When this certificate arrived (ms since epoch): renewal is timed from it, not from notBefore, which the controller backdates for clock skew. */
  receivedAt: number;
}

export class EnrollmentError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

function pem(label: string, der: ArrayBuffer | Buffer): string {
  return `-----BEGIN ${label}-----\n${Buffer.from(der as ArrayBuffer)
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END ${label}-----\n`;
}

/** A fresh key pair and a CSR for it; the private key never leaves the agent. */
export async function newKeyAndCsr(identity: string): Promise<{ keyPem: string; csrPem: string }> {
  // Loaded here only (enrollment, renewal): @peculiar/x509 and its ASN.1 schemas cost the
  // connected on-router agent ~2.5 MiB of memory, plus 2.7 MiB of TurboFan code pages they
  // warmed up, for a CSR made once a day at most (docs/BENCHMARKS.md, Agent).
  const { x509 } = await import('../../core/x509.js');
  const subtle = webcrypto.subtle; // read here: the getter loads Node's WebCrypto modules
  const keys = (await subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: new x509.Name([{ CN: [identity] }]),
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
  });
  return { keyPem: pem('PRIVATE KEY', await subtle.exportKey('pkcs8', keys.privateKey)), csrPem: csr.toString('pem') };
}

const normalizeFingerprint = (f: string) =>
  f
    .replace(/^sha256:/i, '')
    .replace(/[^0-9a-f]/gi, '')
    .toLowerCase();

/**
 * Bootstraps trust from a pinned CA fingerprint (what `POST /v1/enrollment-tokens` returns):
 * reads the certificate chain the controller presents and keeps the CA certificate whose
 * SHA-256 matches the pin. Nothing is trusted blindly: no match, no enrollment. The chain
 * itself is then verified by TLS on the Enroll call against that CA.
 */
export async function fetchPinnedCa(address: string, fingerprint: string, timeoutMs = 10_000): Promise<string> {
  const want = normalizeFingerprint(fingerprint);
  if (want.length !== 64) throw new EnrollmentError('the CA fingerprint must be a SHA-256 (64 hex digits)');
  const idx = address.lastIndexOf(':');
  const host = address.slice(0, idx).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(idx + 1));
  const chain = await new Promise<DetailedPeerCertificate>((resolve, reject) => {
    // rejectUnauthorized=false only to READ the chain; trust is decided by the pin below.
    const socket = tlsConnect(
      {
        host,
        port,
        rejectUnauthorized: false,
        ALPNProtocols: ['h2'],
        servername: isIP(host) ? undefined : host, // an IP address is no server name (controller-server-name.ts)
      },
      () => {
        const peer = socket.getPeerCertificate(true);
        socket.destroy();
        resolve(peer);
      },
    );
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(new Error(`timed out reading the controller's certificate from ${address}`)),
    );
    socket.on('error', reject);
  });
  const seen = new Set<string>();
  for (
    let cert: DetailedPeerCertificate | undefined = chain;
    cert?.raw && !seen.has(cert.fingerprint256);
    cert = cert.issuerCertificate
  ) {
    seen.add(cert.fingerprint256);
    if (createHash('sha256').update(cert.raw).digest('hex') === want) return pem('CERTIFICATE', cert.raw);
  }
  throw new EnrollmentError(
    `the controller at ${address} did not present a CA with the pinned fingerprint; refusing to enroll`,
  );
}

export interface EnrollOptions {
  /** host:port of the controller's gRPC endpoint, or several comma-separated (tried in turn while unreachable). */
  address: string;
  /** The single-use enrollment token (wfe_...). */
  token: string;
  identity: string;
  name?: string;
  /** Trust: the controller's CA certificate, or its SHA-256 fingerprint to pin. */
  caPem?: string;
  caFingerprint?: string;
  timeoutMs?: number;
}

/**
 * Exchanges an enrollment token and a CSR for this router's client certificate (server
 * verified by TLS). With several controller addresses, one that cannot be reached is skipped;
 * a refusal is final (the token is the same everywhere).
 */
export async function enroll(options: EnrollOptions): Promise<AgentIdentity> {
  const addresses = controllerAddresses(options.address);
  for (const [i, address] of addresses.entries()) {
    try {
      return await enrollAt({ ...options, address });
    } catch (err) {
      // Socket errors and timeouts reading the CA are plain Errors; refusals are EnrollmentErrors.
      const unreachable =
        !(err instanceof EnrollmentError) ||
        err.code === grpcStatus.UNAVAILABLE ||
        err.code === grpcStatus.DEADLINE_EXCEEDED;
      if (!unreachable || i === addresses.length - 1) throw err;
    }
  }
  throw new EnrollmentError('no controller address given');
}

async function enrollAt(options: EnrollOptions): Promise<AgentIdentity> {
  const caPem =
    options.caPem ??
    (options.caFingerprint
      ? await fetchPinnedCa(options.address, options.caFingerprint, options.timeoutMs)
      : undefined);
  if (!caPem)
    throw new EnrollmentError('enrollment needs the controller CA (caPem) or its fingerprint (caFingerprint)');
  const { keyPem, csrPem } = await newKeyAndCsr(options.identity);
  const client = new AgentServiceClient(
    options.address,
    grpcCredentials.createSsl(Buffer.from(caPem), null, null, CONTROLLER_VERIFY_OPTIONS),
    { ...controllerChannelOptions(options.address), 'grpc.use_local_subchannel_pool': 1 },
  );
  try {
    const response = await new Promise<EnrollResponse>((resolve, reject) => {
      client.enroll(
        { token: options.token, csrPem, router: { identity: options.identity, name: options.name ?? '' } },
        new Metadata(),
        { deadline: Date.now() + (options.timeoutMs ?? 15_000) },
        (err: ServiceError | null, res?: EnrollResponse) =>
          err
            ? reject(new EnrollmentError(`enrollment refused: ${err.details || err.message}`, err.code))
            : resolve(res!),
      );
    });
    return {
      identity: options.identity,
      routerId: response.routerId,
      keyPem,
      certificatePem: response.certificatePem,
      caPem: response.caCertificatePem || caPem,
      receivedAt: Date.now(),
    };
  } finally {
    client.close();
  }
}

const FILES = { key: 'client.key', cert: 'client.crt', ca: 'ca.crt', meta: 'identity.json' } as const;

/**
 * One router's credentials on the agent side (a proxy holds one of these per managed
 * router): mTLS channel credentials for ControllerLink, renewal bookkeeping, and optional
 * persistence in a state directory (key mode 0600).
 */
export class AgentCredentials {
  private pendingKeyPem: string | undefined;
  private built: { for: AgentIdentity; credentials: ChannelCredentials } | undefined;
  private expiry: { for: AgentIdentity; notAfter: Date } | undefined;

  constructor(
    private current: AgentIdentity,
    private readonly stateDir?: string,
  ) {}

  /**
   * mTLS channel credentials for the current certificate. Its TLS context is built once per
   * certificate: grpc-js's certificate-provider credentials built a new one (parsing the key,
   * certificate and CA, ~1.2 ms of CPU) before every connection attempt and again for its
   * handshake, which after a controller restart kept a fleet process's CPU saturated.
   */
  get channelCredentials(): ChannelCredentials {
    if (this.built?.for !== this.current) {
      const context = createSecureContext({
        key: this.current.keyPem,
        cert: this.current.certificatePem,
        ca: this.current.caPem,
      });
      this.built = {
        for: this.current,
        credentials: grpcCredentials.createFromSecureContext(context, CONTROLLER_VERIFY_OPTIONS),
      };
    }
    return this.built.credentials;
  }

  /**
   * Pass to ControllerLink / RouterAgent as `credentials`: read at each new channel, so the
   * channel opened after a renewal presents the renewed certificate.
   */
  readonly linkCredentials = (): ChannelCredentials => this.channelCredentials;

  get identity(): AgentIdentity {
    return this.current;
  }

  /** Parsed once per certificate: renewal asks on every Welcome and every minute, per router. */
  get notAfter(): Date {
    if (this.expiry?.for !== this.current)
      this.expiry = { for: this.current, notAfter: new Date(new X509Certificate(this.current.certificatePem).validTo) };
    return this.expiry.notAfter;
  }

  /** Renew once two thirds of the remaining lifetime have passed: a day-long certificate renews after 16 h. */
  renewalDue(now = new Date()): boolean {
    const start = this.current.receivedAt;
    const end = this.notAfter.getTime();
    return now.getTime() >= start + ((end - start) * 2) / 3;
  }

  static async enroll(options: EnrollOptions & { stateDir?: string }): Promise<AgentCredentials> {
    const creds = new AgentCredentials(await enroll(options), options.stateDir);
    await creds.save();
    return creds;
  }

  /** The credentials saved in `stateDir`, or null when this router was never enrolled there. */
  static async load(stateDir: string): Promise<AgentCredentials | null> {
    try {
      // Read synchronously: four files of a few hundred bytes each cost 0.04 ms this way
      // against 0.5 ms through fs/promises (open, stat, read, close, each a thread-pool round
      // trip), and a proxy or simulated fleet loads thousands of routers' at start.
      const read = (file: string) => readFileSync(path.join(stateDir, file), 'utf8');
      const meta = JSON.parse(read(FILES.meta)) as { identity: string; routerId: string; receivedAt: number };
      const [keyPem, certificatePem, caPem] = [FILES.key, FILES.cert, FILES.ca].map(read);
      return new AgentCredentials(
        { ...meta, keyPem: keyPem!, certificatePem: certificatePem!, caPem: caPem! },
        stateDir,
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  private async save(): Promise<void> {
    if (!this.stateDir) return;
    await mkdir(this.stateDir, { recursive: true, mode: 0o700 });
    const write = async (name: string, data: string, mode: number) => {
      const file = path.join(this.stateDir!, name);
      await writeFile(`${file}.tmp`, data, { mode });
      await chmod(`${file}.tmp`, mode);
      await rename(`${file}.tmp`, file);
    };
    await write(FILES.key, this.current.keyPem, 0o600);
    await write(FILES.cert, this.current.certificatePem, 0o644);
    await write(FILES.ca, this.current.caPem, 0o644);
    await write(
      FILES.meta,
      JSON.stringify({
        identity: this.current.identity,
        routerId: this.current.routerId,
        receivedAt: this.current.receivedAt,
      }),
      0o644,
    );
  }

  /** A CSR for a NEW key (kept pending until the renewed certificate arrives). */
  async renewalRequest(): Promise<string> {
    const { keyPem, csrPem } = await newKeyAndCsr(this.current.identity);
    this.pendingKeyPem = keyPem;
    return csrPem;
  }

  /** Installs a renewed certificate if it matches the pending key; the next connection uses it. */
  async applyRenewal(renewed: Renewed): Promise<void> {
    const keyPem = this.pendingKeyPem;
    if (renewed.error || !renewed.certificatePem)
      throw new EnrollmentError(`renewal refused: ${renewed.error || 'no certificate'}`);
    if (!keyPem) throw new EnrollmentError('a renewed certificate arrived without a pending request');
    const certKey = new X509Certificate(renewed.certificatePem).publicKey.export({ format: 'der', type: 'spki' });
    const ourKey = createPublicKey(keyPem).export({ format: 'der', type: 'spki' });
    if (!certKey.equals(ourKey)) throw new EnrollmentError('the renewed certificate is not for the pending key');
    this.pendingKeyPem = undefined;
    this.current = {
      ...this.current,
      keyPem,
      certificatePem: renewed.certificatePem,
      caPem: renewed.caCertificatePem || this.current.caPem,
      receivedAt: Date.now(),
    };
    await this.save();
  }
}

/**
 * Enrolls many routers (a proxy, the simulated fleet) with at most `concurrency` in flight;
 * returns each router's pending credentials by identity. Without `enrollOne`, nothing.
 */
export function enrollConcurrently(
  routers: { identity: string; name: string }[],
  enrollOne: ((identity: string, name: string) => Promise<AgentCredentials>) | undefined,
  concurrency = 4,
): Map<string, Promise<AgentCredentials | undefined>> {
  const result = new Map<string, Promise<AgentCredentials | undefined>>();
  if (!enrollOne) return result;
  const limited = concurrencyGate(concurrency);
  for (const r of routers) {
    const p = limited(() => enrollOne(r.identity, r.name));
    p.catch(() => undefined); // awaited (and reported) by the caller
    result.set(r.identity, p);
  }
  return result;
}
