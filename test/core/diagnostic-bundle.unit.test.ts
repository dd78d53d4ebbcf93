import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_SECTION_MAX_BYTES, DIAGNOSTICS_MAX_BYTES, utf8Bytes } from '../../core/bounded-text.js';
import { boundBundle, type DiagnosticSectionText } from '../../core/diagnostic-bundle.js';

const section = (name: string, bytes: number): DiagnosticSectionText => ({
  name,
  command: name,
  text: Array.from(
    { length: Math.ceil(bytes / 32) },
    (_, i) => `${name} ${String(i).padStart(8, '0')} ${'.'.repeat(13)}`,
  )
    .join('\n')
    .slice(0, bytes),
  truncated: false,
  error: '',
});

describe('diagnostic bundle bounds', () => {
  it('holds each section to 64 KiB and the bundle to 256 KiB, keeping the newest log lines', () => {
    const bundle = boundBundle(
      ['logread', 'dmesg', 'nftables', 'bpf', 'extra1', 'extra2'].map((n) => section(n, 1024 * 1024)),
    );
    for (const s of bundle) {
      expect(utf8Bytes(s.text)).toBeLessThanOrEqual(DIAGNOSTIC_SECTION_MAX_BYTES);
      expect(s.truncated).toBe(true);
    }
    expect(bundle.reduce((n, s) => n + utf8Bytes(s.text), 0)).toBeLessThanOrEqual(DIAGNOSTICS_MAX_BYTES);
    // Four full sections use nearly the whole budget: what comes after them gets only what they left.
    expect(bundle.slice(4).reduce((n, s) => n + utf8Bytes(s.text), 0)).toBeLessThan(1024);
    const dmesg = bundle
      .find((s) => s.name === 'dmesg')!
      .text.trimEnd()
      .split('\n');
    expect(dmesg.at(-1)).toMatch(/^dmesg 00032767 /);
    expect(bundle.find((s) => s.name === 'nftables')!.text).toMatch(/^nftables 00000000 /);
  });

  it('leaves a small bundle as it was, and keeps at most 8 sections', () => {
    const small = [section('logread', 100), { ...section('bpf', 0), error: 'bpftool: not found (exit 127)' }];
    expect(boundBundle(small)).toEqual(small);
    expect(boundBundle(Array.from({ length: 12 }, (_, i) => section(`s${i}`, 10)))).toHaveLength(8);
  });
});
