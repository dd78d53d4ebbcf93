import type { PeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import {
  checkControllerIdentity,
  controllerChannelOptions,
  standInServerName,
} from '../../../agent/enrollment/controller-server-name.js';

const OVERRIDE = 'grpc.ssl_target_name_override';
/** What tls.checkServerIdentity reads of a certificate: its subject alternative names. */
const cert = (subjectaltname: string) => ({ subject: {}, subjectaltname }) as unknown as PeerCertificate;

describe('the TLS server name of a controller dialed by IP address (Node 26 refuses an IP as SNI)', () => {
  it('sends a stand-in name for an IPv4 or IPv6 host, nothing for a host name', () => {
    expect(controllerChannelOptions('10.0.0.1:50051')).toEqual({ [OVERRIDE]: '10-0-0-1.ip.wrtfleet.invalid' });
    expect(controllerChannelOptions('[fd00::1]:50051')).toEqual({ [OVERRIDE]: 'fd00xx1.ip.wrtfleet.invalid' });
    expect(controllerChannelOptions('ipv4:127.0.0.1:50051')).toEqual({ [OVERRIDE]: standInServerName('127.0.0.1') });
    expect(controllerChannelOptions('controller.example.net:50051')).toEqual({});
    expect(controllerChannelOptions('localhost:50051')).toEqual({});
  });

  it('checks the certificate against the dialed IP, as strictly as before', () => {
    const ipCert = cert('IP Address:10.0.0.1, DNS:controller.example.net');
    expect(checkControllerIdentity(standInServerName('10.0.0.1'), ipCert)).toBeUndefined();
    expect(checkControllerIdentity(standInServerName('10.0.0.2'), ipCert)).toBeInstanceOf(Error);
    expect(
      checkControllerIdentity(standInServerName('fd00::1'), cert('IP Address:FD00:0:0:0:0:0:0:1')),
    ).toBeUndefined();
    expect(checkControllerIdentity('controller.example.net', ipCert)).toBeUndefined();
    expect(checkControllerIdentity('other.example.net', ipCert)).toBeInstanceOf(Error);
    // A stand-in spelling no IP is just a name no certificate holds.
    expect(checkControllerIdentity('nonsense.ip.wrtfleet.invalid', ipCert)).toBeInstanceOf(Error);
  });
});
