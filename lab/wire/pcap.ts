/** Minimal pcap reader (libpcap format, micro- or nanosecond, either byte order). */
import { readFileSync } from 'node:fs';

export interface PcapPacket {
  data: Buffer;
  /** Original length on the wire (may exceed data.length when the capture was cut). */
  origLen: number;
}

export function readPcap(path: string): { linktype: number; packets: PcapPacket[] } {
  const buf = readFileSync(path);
  if (buf.length < 24) return { linktype: 1, packets: [] };
  const magicLE = buf.readUInt32LE(0);
  let le: boolean;
  if (magicLE === 0xa1b2c3d4 || magicLE === 0xa1b23c4d) le = true;
  else if (buf.readUInt32BE(0) === 0xa1b2c3d4 || buf.readUInt32BE(0) === 0xa1b23c4d) le = false;
  else throw new Error(`${path}: not a pcap file`);
  const u32 = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  const linktype = u32(20);
  const packets: PcapPacket[] = [];
  for (let off = 24; off + 16 <= buf.length;) {
    const incl = u32(off + 8);
    const orig = u32(off + 12);
    if (off + 16 + incl > buf.length) break; // capture stopped mid-record
    packets.push({ data: buf.subarray(off + 16, off + 16 + incl), origLen: orig });
    off += 16 + incl;
  }
  return { linktype, packets };
}
