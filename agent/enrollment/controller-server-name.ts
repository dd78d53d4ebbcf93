import { isIP } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { ChannelOptions } from '@grpc/grpc-js';

/**
 * grpc-js sends the host it dials as the TLS server name (SNI). An IP address is not a valid
 * server name (RFC 6066, section 3) and Node.js 26 refuses it outright, so a controller dialed
 * by IP address (`--controller 10.0.0.1:50051`) would be unreachable there. For such a host
 * the channel sends a stand-in name instead, the IP spelled as a label under the reserved
 * `.invalid` domain, and `checkControllerIdentity` turns it back into the IP before checking
 * the certificate: the controller must still name the very address dialed, as before.
 */
const STAND_IN_SUFFIX = '.ip.wrtfleet.invalid';

/** `10.0.0.1` → `10-0-0-1.ip.wrtfleet.invalid`, `fd00::1` → `fd00xx1.ip.wrtfleet.invalid` (no IP holds `-` or `x`). */
export function standInServerName(ip: string): string {
  return `${ip.replaceAll('.', '-').replaceAll(':', 'x')}${STAND_IN_SUFFIX}`;
}

/** The IP a stand-in name spells, or undefined for any other name. */
function ipOfStandIn(name: string): string | undefined {
  if (!name.endsWith(STAND_IN_SUFFIX)) return undefined;
  const ip = name.slice(0, -STAND_IN_SUFFIX.length).replaceAll('-', '.').replaceAll('x', ':');
  return isIP(ip) ? ip : undefined;
}

/** The host of `host:port`, `[v6]:port` or a one-address gRPC target such as `ipv4:10.0.0.1:50051`. */
function hostOf(address: string): string {
  const target = address.trim().replace(/^(ipv4|ipv6|dns):(\/\/[^/]*\/)?/, '');
  if (target.includes(',')) return target; // several addresses: no one name fits them all
  const bracketed = /^\[([^\]]+)\]/.exec(target);
  if (bracketed) return bracketed[1]!;
  if (isIP(target)) return target; // a bare IPv6 address without a port
  const colon = target.lastIndexOf(':');
  return colon > 0 ? target.slice(0, colon) : target;
}

/**
 * Channel options for a TLS channel to one controller address: the stand-in server name when
 * the host is an IP address, nothing otherwise. Harmless on a plaintext channel.
 */
export function controllerChannelOptions(address: string): ChannelOptions {
  const host = hostOf(address);
  return isIP(host) ? { 'grpc.ssl_target_name_override': standInServerName(host) } : {};
}

/**
 * The check of the controller's certificate for every TLS channel an agent opens: Node's own
 * host name and IP address rules, applied to the dialed IP when the name is a stand-in. A
 * credentials object without it fails closed on an IP address (the stand-in matches no certificate).
 */
export function checkControllerIdentity(name: string, cert: PeerCertificate): Error | undefined {
  return checkServerIdentity(ipOfStandIn(name) ?? name, cert);
}

/** The verify options to build an agent's channel credentials with. */
export const CONTROLLER_VERIFY_OPTIONS = { checkServerIdentity: checkControllerIdentity } as const;
