import { createHash, randomBytes, X509Certificate as NodeX509, createPrivateKey, webcrypto } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { PeerCertificate } from 'node:tls';
import path from 'node:path';
import type { Logger } from 'pino';
import { x509 } from '../../core/x509.js';

const subtle = webcrypto.subtle;
/** EC P-256 with SHA-256: small keys and signatures, fast on router-class CPUs, supported by every TLS stack. */
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;

const CA_LIFETIME_DAYS = 3650;
const SERVER_LIFETIME_DAYS = 365;
/** The server certificate is re-issued at start when it has less than this left. */
const SERVER_RENEW_BEFORE_DAYS = 30;
/** Certificates start a little in the past: a router whose clock lags must not reject a fresh one. */
const CLOCK_SKEW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** The URI SAN every router client certificate carries; the router identity, percent-encoded. */
export const ROUTER_URI_PREFIX = 'urn:wrtfleet:router:';

export function routerUri(identity: string): string {
  return `${ROUTER_URI_PREFIX}${encodeURIComponent(identity)}`;
}

export class CertificateRequestRejected extends Error {}

export interface PkiOptions {
  dataDir: string;
  /** Names (DNS or IP) agents dial the gRPC endpoint by, besides 127.0.0.1, ::1 and localhost. */
  serverNames: string[];
  /** Lifetime of router client certificates. */
  clientCertificateLifetimeSeconds: number;
  /** Operator-supplied CA (both or neither). */
  caCertFile?: string;
  caKeyFile?: string;
  /** Operator-supplied server certificate for the gRPC endpoint (both or neither). */
  serverCertFile?: string;
  serverKeyFile?: string;
}

export interface IssuedCertificate {
  certificatePem: string;
  /** Lowercase hex, no leading zeros: the AgentCertificate primary key. */
  serial: string;
  /** SHA-256 of the DER, lowercase hex. */
  fingerprint: string;
  notBefore: Date;
  notAfter: Date;
}

/** What the controller learns from a verified peer certificate. */
export interface PeerCertificateInfo {
  identity: string;
  serial: string;
  fingerprint: string;
  notAfter: Date;
}

export function normalizeSerial(hex: string): string {
  return BigInt(`0x${hex.replace(/[^0-9a-fA-F]/g, '') || '0'}`).toString(16);
}

export function sha256Fingerprint(der: Buffer | ArrayBuffer): string {
  return createHash('sha256')
    .update(Buffer.from(der as ArrayBuffer))
    .digest('hex');
}

function randomSerial(): string {
  // 128 bits of randomness, high bit clear (DER INTEGER stays positive), never zero.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function exportKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END PRIVATE KEY-----\n`;
}

/** Imports a PEM private key (PKCS#8 or SEC1 "EC PRIVATE KEY") as a WebCrypto ECDSA signing key. */
async function importSigningKey(pem: string): Promise<CryptoKey> {
  const der = createPrivateKey(pem).export({ format: 'der', type: 'pkcs8' });
  return subtle.importKey('pkcs8', der, KEY_ALGORITHM, true, ['sign']);
}

/** Writes atomically with the final mode from the start (no window where a key is world-readable). */
async function writePrivate(file: string, data: string, mode: number): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode);
  await rename(tmp, file);
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function splitPem(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

interface CaMaterial {
  certPem: string;
  cert: x509.X509Certificate;
  key: CryptoKey;
}

async function createCa(commonName: string): Promise<{ certPem: string; keyPem: string }> {
  const keys = (await subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + CA_LIFETIME_DAYS * DAY_MS),
    signingAlgorithm: SIGNING_ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

async function loadCa(certPem: string, keyPem: string): Promise<CaMaterial> {
  const cert = new x509.X509Certificate(certPem);
  const key = await importSigningKey(keyPem);
  return { certPem: cert.toString('pem'), cert, key };
}

/**
 * The controller's certificate authority: issues the gRPC server certificate and the
 * routers' short-lived client certificates. Kept in <dataDir>/pki (keys mode 0600), or
 * supplied by the operator (WRTFLEET_CA_CERT_FILE/WRTFLEET_CA_KEY_FILE, and optionally
 * WRTFLEET_TLS_CERT_FILE/WRTFLEET_TLS_KEY_FILE for the server certificate).
 *
 * CA rotation without re-enrolling the fleet: `next-ca.crt/key` (prepared) is added to the
 * trust bundle every agent receives on enrollment and renewal; once every agent has renewed,
 * activation makes it the CA and keeps the old one as `previous-ca.crt`, still trusted for
 * client certificates until they expire. See docs/SECURITY.md.
 */
export class ControllerPki {
  private constructor(
    private readonly ca: CaMaterial,
    /** PEM of every CA agents and the server trust: current, next (prepared), previous. */
    readonly trustBundlePem: string,
    readonly serverCertificateChainPem: string,
    readonly serverKeyPem: string,
    private readonly clientLifetimeMs: number,
  ) {}

  get caCertificatePem(): string {
    return this.ca.certPem;
  }

  /** SHA-256 of the CA certificate (hex): what an operator pins when enrolling an agent. */
  get caFingerprint(): string {
    return sha256Fingerprint(this.ca.cert.rawData);
  }

  get clientCertificateLifetimeMs(): number {
    return this.clientLifetimeMs;
  }

  static directory(dataDir: string): string {
    return path.resolve(dataDir, 'pki');
  }

  static async open(options: PkiOptions, log?: Logger): Promise<ControllerPki> {
    const dir = ControllerPki.directory(options.dataDir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);

    let ca: CaMaterial;
    if (options.caCertFile || options.caKeyFile) {
      if (!options.caCertFile || !options.caKeyFile)
        throw new Error('WRTFLEET_CA_CERT_FILE and WRTFLEET_CA_KEY_FILE must be set together');
      ca = await loadCa(await readFile(options.caCertFile, 'utf8'), await readFile(options.caKeyFile, 'utf8'));
      log?.info({ caCertFile: options.caCertFile }, 'using the operator-supplied CA');
    } else {
      const certFile = path.join(dir, 'ca.crt');
      const keyFile = path.join(dir, 'ca.key');
      let certPem = await readIfExists(certFile);
      let keyPem = await readIfExists(keyFile);
      if (!certPem || !keyPem) {
        if (certPem || keyPem)
          throw new Error(
            `${dir} holds only half of the CA (ca.crt and ca.key must both exist); refusing to replace it`,
          );
        ({ certPem, keyPem } = await createCa(`wrtfleet controller CA ${randomBytes(4).toString('hex')}`));
        await writePrivate(keyFile, keyPem, 0o600);
        await writePrivate(certFile, certPem, 0o644);
        log?.warn({ dir }, 'created the controller CA (first start); back up this directory, agents trust it');
      }
      ca = await loadCa(certPem, keyPem);
    }

    const extraTrust = [
      await readIfExists(path.join(dir, 'next-ca.crt')),
      await readIfExists(path.join(dir, 'previous-ca.crt')),
    ]
      .filter((p): p is string => !!p)
      .flatMap(splitPem);
    const trustBundlePem = [ca.certPem.trim(), ...extraTrust.map((p) => p.trim())].join('\n') + '\n';

    let serverChain: string;
    let serverKey: string;
    if (options.serverCertFile || options.serverKeyFile) {
      if (!options.serverCertFile || !options.serverKeyFile)
        throw new Error('WRTFLEET_TLS_CERT_FILE and WRTFLEET_TLS_KEY_FILE must be set together');
      serverChain = await readFile(options.serverCertFile, 'utf8');
      serverKey = await readFile(options.serverKeyFile, 'utf8');
    } else {
      ({ chainPem: serverChain, keyPem: serverKey } = await ControllerPki.ensureServerCertificate(
        dir,
        ca,
        options.serverNames,
        log,
      ));
    }
    return new ControllerPki(
      ca,
      trustBundlePem,
      serverChain,
      serverKey,
      options.clientCertificateLifetimeSeconds * 1000,
    );
  }

  private static async ensureServerCertificate(dir: string, ca: CaMaterial, extraNames: string[], log?: Logger) {
    const names = [
      ...new Set(['127.0.0.1', '::1', 'localhost', ...extraNames.filter((n) => n && n !== '0.0.0.0' && n !== '::')]),
    ];
    const certFile = path.join(dir, 'server.crt');
    const keyFile = path.join(dir, 'server.key');
    const namesFile = path.join(dir, 'server.names.json');
    const existing = await readIfExists(certFile);
    const existingKey = await readIfExists(keyFile);
    if (existing && existingKey) {
      const leaf = new NodeX509(splitPem(existing)[0] ?? existing);
      // The names the certificate was issued for are kept beside it: comparing against the
      // SAN text would depend on how each Node version prints IPv6 addresses.
      const issuedFor = JSON.parse((await readIfExists(namesFile)) ?? '[]') as string[];
      const covers = names.every((n) => issuedFor.includes(n));
      const fresh = new Date(leaf.validTo).getTime() - Date.now() > SERVER_RENEW_BEFORE_DAYS * DAY_MS;
      const sameCa = leaf.checkIssued(new NodeX509(ca.certPem)) && leaf.verify(new NodeX509(ca.certPem).publicKey);
      if (covers && fresh && sameCa) return { chainPem: existing, keyPem: existingKey };
      log?.info({ covers, fresh, sameCa }, 're-issuing the gRPC server certificate');
    }
    const keys = (await subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: 'CN=wrtfleet controller',
      issuer: ca.cert.subject,
      notBefore: new Date(now - CLOCK_SKEW_MS),
      notAfter: new Date(now + SERVER_LIFETIME_DAYS * DAY_MS),
      signingAlgorithm: SIGNING_ALGORITHM,
      publicKey: keys.publicKey,
      signingKey: ca.key,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(
          names.map((n) => ({ type: isIP(n) ? ('ip' as const) : ('dns' as const), value: n })),
        ),
        await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      ],
    });
    // The chain includes the CA so an agent that pins only the CA fingerprint can find it.
    const chainPem = `${cert.toString('pem').trim()}\n${ca.certPem.trim()}\n`;
    const keyPem = await exportKeyPem(keys.privateKey);
    await writePrivate(keyFile, keyPem, 0o600);
    await writePrivate(certFile, chainPem, 0o644);
    await writePrivate(namesFile, JSON.stringify(names), 0o644);
    log?.info({ names }, 'issued the gRPC server certificate');
    return { chainPem, keyPem };
  }

  /**
   * Signs a router's CSR. The subject and SANs of the request are ignored: the certificate
   * names exactly the identity the controller decided (CN and a URI SAN), for client
   * authentication only. The CSR's own signature proves the agent holds the key.
   */
  async issueClientCertificate(csrPem: string, identity: string, now = new Date()): Promise<IssuedCertificate> {
    let csr: x509.Pkcs10CertificateRequest;
    try {
      if (csrPem.length > 16 * 1024 || !csrPem.includes('-----BEGIN CERTIFICATE REQUEST-----'))
        throw new Error('not a PEM certificate request');
      csr = new x509.Pkcs10CertificateRequest(csrPem);
    } catch {
      throw new CertificateRequestRejected('csrPem is not a PEM-encoded PKCS#10 certificate request');
    }
    const alg = csr.publicKey.algorithm as { name: string; namedCurve?: string; modulusLength?: number };
    const acceptable =
      (alg.name === 'ECDSA' && (alg.namedCurve === 'P-256' || alg.namedCurve === 'P-384')) ||
      alg.name === 'Ed25519' ||
      ((alg.name === 'RSASSA-PKCS1-v1_5' || alg.name === 'RSA-PSS') && (alg.modulusLength ?? 0) >= 2048);
    if (!acceptable)
      throw new CertificateRequestRejected('the CSR key must be EC P-256/P-384, Ed25519 or RSA >= 2048 bits');
    const signatureOk = await csr.verify().catch(() => false);
    if (!signatureOk)
      throw new CertificateRequestRejected('the CSR signature does not verify (proof of key possession failed)');

    const notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
    const notAfter = new Date(now.getTime() + this.clientLifetimeMs);
    const serial = randomSerial();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial,
      subject: new x509.Name([{ CN: [identity] }, { O: ['wrtfleet router'] }]),
      issuer: this.ca.cert.subject,
      notBefore,
      notAfter,
      signingAlgorithm: SIGNING_ALGORITHM,
      publicKey: csr.publicKey,
      signingKey: this.ca.key,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: 'url', value: routerUri(identity) }]),
        await x509.AuthorityKeyIdentifierExtension.create(this.ca.cert),
      ],
    });
    return {
      certificatePem: cert.toString('pem'),
      serial: normalizeSerial(serial),
      fingerprint: sha256Fingerprint(cert.rawData),
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
    };
  }
}

/** The clientAuth extended key usage (RFC 5280 id-kp-clientAuth). */
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

/**
 * Reads the router identity and serial from a client certificate the TLS layer has
 * already verified against the trust bundle. Returns null for a certificate that names no
 * router (e.g. the server certificate, or one without the clientAuth usage).
 *
 * It reads the fields OpenSSL parsed during the handshake (`getPeerCertificate()`), not the
 * DER again. Why: parsing it again in JavaScript was a large share of a connect's CPU; measured
 * in docs/BENCHMARKS.md#appendix-how-the-numbers-got-here (fleet scale, 2026-12-02 10:25).
 */
export function peerCertificateInfo(cert: PeerCertificate): PeerCertificateInfo | null {
  if (!cert.ext_key_usage?.includes(CLIENT_AUTH_OID)) return null;
  // Node joins SAN entries with ", " and JSON-quotes a value holding a separator or quote;
  // routerUri() percent-encodes those, so a quoted router URI is not one this CA issued.
  const uris = (cert.subjectaltname ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith(`URI:${ROUTER_URI_PREFIX}`) || entry.startsWith(`URI:"${ROUTER_URI_PREFIX}`));
  if (uris.length !== 1 || uris[0]!.startsWith('URI:"')) return null;
  let identity: string;
  try {
    identity = decodeURIComponent(uris[0]!.slice(`URI:${ROUTER_URI_PREFIX}`.length));
  } catch {
    return null;
  }
  const notAfter = new Date(cert.valid_to);
  if (!cert.serialNumber || !cert.fingerprint256 || Number.isNaN(notAfter.getTime())) return null;
  return {
    identity,
    serial: normalizeSerial(cert.serialNumber),
    fingerprint: cert.fingerprint256.replaceAll(':', '').toLowerCase(),
    notAfter,
  };
}
