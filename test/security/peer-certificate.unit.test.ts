import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import tls, { type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKeyAndCsr } from '../../agent/enrollment/agent-credentials.js';
import { ControllerPki, peerCertificateInfo, sha256Fingerprint } from '../../server/pki/ca.js';

/** A client key and a certificate for `identity` issued by `pki`, as an agent enrolls. */
async function clientCredentials(pki: ControllerPki, identity: string) {
  const { keyPem, csrPem } = await newKeyAndCsr(identity);
  return { issued: await pki.issueClientCertificate(csrPem, identity), keyPem };
}

/** What the server side of a real mutual-TLS handshake sees of the client's certificate. */
async function handshake(pki: ControllerPki, cert: string, key: string): Promise<PeerCertificate> {
  const server = tls.createServer({
    cert: pki.serverCertificateChainPem,
    key: pki.serverKeyPem,
    ca: pki.trustBundlePem,
    requestCert: true,
    rejectUnauthorized: false,
  });
  const seen = new Promise<PeerCertificate>((resolve) =>
    server.once('secureConnection', (socket) => {
      resolve(socket.getPeerCertificate());
      socket.end();
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const client = tls.connect({ host: '127.0.0.1', port, cert, key, ca: pki.trustBundlePem, servername: 'localhost' });
  client.on('error', () => {});
  try {
    return await seen;
  } finally {
    client.destroy();
    server.close();
  }
}

describe('peerCertificateInfo reads the router from the handshake’s parsed certificate', () => {
  let dir: string;
  let pki: ControllerPki;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'wf-peer-cert-'));
    pki = await ControllerPki.open({ dataDir: dir, serverNames: [], clientCertificateLifetimeSeconds: 3600 });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('identity (percent-encoded in the URI SAN), serial, fingerprint and expiry match what was issued', async () => {
    const identity = 'router "7", lab/α';
    const { issued, keyPem } = await clientCredentials(pki, identity);
    const peer = await handshake(pki, issued.certificatePem, keyPem);
    const info = peerCertificateInfo(peer);
    expect(info).toEqual({
      identity,
      serial: issued.serial,
      fingerprint: sha256Fingerprint(peer.raw),
      notAfter: new Date(Math.floor(issued.notAfter.getTime() / 1000) * 1000),
    });
    expect(info!.fingerprint).toBe(issued.fingerprint);
  });

  it('a certificate without clientAuth (the server’s own) names no router', async () => {
    const peer = await handshake(pki, pki.serverCertificateChainPem, pki.serverKeyPem);
    expect(peer.raw).toBeDefined();
    expect(peerCertificateInfo(peer)).toBeNull();
  });

  it('two router URIs, or a quoted one, name no router', () => {
    const base = {
      ext_key_usage: ['1.3.6.1.5.5.7.3.2'],
      serialNumber: '0A',
      fingerprint256: 'AB:CD',
      valid_to: 'Dec  3 10:26:53 2030 GMT',
    } as unknown as PeerCertificate;
    const one = { ...base, subjectaltname: 'URI:urn:wrtfleet:router:r1' } as PeerCertificate;
    expect(peerCertificateInfo(one)?.identity).toBe('r1');
    expect(
      peerCertificateInfo({ ...base, subjectaltname: 'URI:urn:wrtfleet:router:r1, URI:urn:wrtfleet:router:r2' }),
    ).toBeNull();
    expect(peerCertificateInfo({ ...base, subjectaltname: 'URI:"urn:wrtfleet:router:r1, x"' })).toBeNull();
    expect(
      peerCertificateInfo({
        ...base,
        ext_key_usage: ['1.3.6.1.5.5.7.3.1'],
        subjectaltname: 'URI:urn:wrtfleet:router:r1',
      }),
    ).toBeNull();
  });
});
