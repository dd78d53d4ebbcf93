import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses onboarding may open an SSH connection to. Without it a write token is a
 * port scanner: the job's error tells an open port from a closed one, for any host the
 * controller can reach (cloud metadata at 169.254.169.254 included). A target outside the
 * allowed ranges is refused before any connection, with the same answer whether or not
 * anything listens there.
 */
export const DEFAULT_ONBOARDING_ALLOW = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '127.0.0.0/8',
  'fc00::/7',
  '::1/128',
] as const;

/** Link-local ranges hold metadata services; a broad allow entry such as 0.0.0.0/0 does not cover them. */
const LINK_LOCAL = [
  { address: '169.254.0.0', prefix: 16, family: 'ipv4' },
  { address: 'fe80::', prefix: 10, family: 'ipv6' },
] as const;

interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

export class TargetRefused extends Error {}

/** "10.0.0.0/8", "fd00::/8", or a bare address (a single host); throws on anything else. */
export function parseCidr(entry: string): Cidr {
  const [address = '', prefixText, extra] = entry.trim().split('/');
  const version = isIP(address);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!version || extra !== undefined || !/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max)
    throw new Error(`"${entry}" is not an IPv4 or IPv6 address or CIDR range`);
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** An IPv4-mapped IPv6 address (::ffff:169.254.169.254) is checked as the IPv4 address it carries. */
function normalized(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 4 ? 'ipv4' : 'ipv6' };
}

function blockList(ranges: readonly Cidr[]): BlockList {
  const list = new BlockList();
  for (const r of ranges) list.addSubnet(r.address, r.prefix, r.family);
  return list;
}

export type Lookup = (host: string) => Promise<string[]>;

const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class OnboardingTargetPolicy {
  readonly allow: readonly string[];
  private readonly allowed: BlockList;
  private readonly linkLocal = blockList(LINK_LOCAL);
  /** Allow entries lying inside a link-local range: the only way to permit one. */
  private readonly explicitLinkLocal: BlockList;

  constructor(
    allow: readonly string[] = DEFAULT_ONBOARDING_ALLOW,
    private readonly lookup: Lookup = systemLookup,
  ) {
    const ranges = allow.map(parseCidr);
    this.allow = allow;
    this.allowed = blockList(ranges);
    this.explicitLinkLocal = blockList(
      ranges.filter((r) =>
        LINK_LOCAL.some(
          (l) => l.family === r.family && r.prefix >= l.prefix && this.linkLocal.check(r.address, r.family),
        ),
      ),
    );
  }

  permits(address: string): boolean {
    const { address: a, family } = normalized(address);
    if (!isIP(a)) return false;
    if (this.linkLocal.check(a, family) && !this.explicitLinkLocal.check(a, family)) return false;
    return this.allowed.check(a, family);
  }

  /**
   * The addresses `host` stands for, every one of them allowed; throws TargetRefused
   * otherwise. A hostname is resolved here, and the job connects to an address this
   * returned, so a name cannot point elsewhere between the check and the connection.
   */
  async addresses(host: string): Promise<string[]> {
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = await this.lookup(host);
      } catch {
        throw new TargetRefused(`host "${host}" does not resolve`);
      }
      if (addresses.length === 0) throw new TargetRefused(`host "${host}" does not resolve`);
    }
    const refused = addresses.filter((a) => !this.permits(a));
    if (refused.length > 0) {
      const what = isIP(host) ? `host ${host}` : `host "${host}" (${refused.join(', ')})`;
      throw new TargetRefused(
        `${what} is outside the onboarding targets this controller allows (WRTFLEET_ONBOARDING_ALLOW)`,
      );
    }
    return addresses;
  }
}
