/**
 * The program tests' assertions over the shared frame catalogue (lab/wire/frame-cases.ts,
 * which the lab's MIPS guests run too).
 */
import { expect } from 'vitest';
import { findIpv4, parseIpv4At } from '../../lab/wire/frames.js';
import { IP_CSUM, TCP_CSUM } from '../../lab/wire/frame-cases.js';

export * from '../../lab/wire/frame-cases.js';

/** Output must equal the expectation except the checksum fields, which must verify instead. */
export function assertSameModuloChecksums(out: Buffer, exp: Buffer, raw: boolean, label: string) {
  expect(out.length, label).toBe(exp.length);
  const p = raw ? parseIpv4At(exp, 0) : findIpv4(exp);
  const mask = (b: Buffer) => {
    const c = Buffer.from(b);
    if (p) {
      c.writeUInt16BE(0, p.l3 + IP_CSUM);
      if (p.tcp && c.length >= p.tcp.l4 + 18) c.writeUInt16BE(0, p.tcp.l4 + TCP_CSUM);
    }
    return c.toString('hex');
  };
  expect(mask(out), label).toBe(mask(exp));
  if (p) {
    const po = (raw ? parseIpv4At(out, 0) : findIpv4(out))!;
    expect(po.headerChecksumOk, `${label}: IPv4 header checksum`).toBe(true);
    if (po.tcp && po.tcp.checksumOk !== null) expect(po.tcp.checksumOk, `${label}: TCP checksum`).toBe(true);
  }
}
