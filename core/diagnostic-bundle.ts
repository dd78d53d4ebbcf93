/**
 * A diagnostic bundle as both processes hold it: the sections the agent collects (the tail of
 * `logread` and `dmesg`, the firewall ruleset, the state of our BPF programs) and the bounds
 * each is held to, the same on the agent before it sends and on the controller before it
 * stores (proto/wrtfleet/agent/v1/agent.proto, DiagnosticSection).
 */
import {
  boundChars,
  boundText,
  DIAGNOSTIC_SECTION_MAX_BYTES,
  DIAGNOSTIC_SECTIONS_MAX,
  DIAGNOSTICS_MAX_BYTES,
  COMMAND_ERROR_MAX_CHARS,
  utf8Bytes,
  type KeptEnd,
} from './bounded-text.js';

/** The sections in the order the agent collects them. */
export const DIAGNOSTIC_SECTION_NAMES = ['logread', 'dmesg', 'nftables', 'bpf'] as const;
export type DiagnosticSectionName = (typeof DIAGNOSTIC_SECTION_NAMES)[number];

export interface DiagnosticSectionText {
  name: string;
  /** The command line(s) that produced `text`. */
  command: string;
  text: string;
  truncated: boolean;
  /** '' when collected; else why not. */
  error: string;
}

/** Logs keep their newest lines when cut; a ruleset or a status its first. */
export function keptEndOf(name: string): KeptEnd {
  return name === 'logread' || name === 'dmesg' ? 'tail' : 'head';
}

/**
 * The bundle within its bounds: at most DIAGNOSTIC_SECTIONS_MAX sections, each text at most
 * DIAGNOSTIC_SECTION_MAX_BYTES, all texts together at most DIAGNOSTICS_MAX_BYTES (a section
 * past the total keeps what is left of it, possibly nothing, and says it was cut).
 */
export function boundBundle(sections: readonly DiagnosticSectionText[]): DiagnosticSectionText[] {
  let left = DIAGNOSTICS_MAX_BYTES;
  return sections.slice(0, DIAGNOSTIC_SECTIONS_MAX).map((s) => {
    const allowance = Math.min(DIAGNOSTIC_SECTION_MAX_BYTES, left);
    const bounded = boundText(s.text, allowance, keptEndOf(s.name));
    // A bound too small for the cut marker itself leaves nothing of the text.
    const text = utf8Bytes(bounded.text) <= allowance ? bounded.text : '';
    left -= utf8Bytes(text);
    return {
      name: boundChars(s.name, 32),
      command: boundChars(s.command, 256),
      text,
      truncated: s.truncated || bounded.truncated || text !== bounded.text,
      error: boundChars(s.error, COMMAND_ERROR_MAX_CHARS),
    };
  });
}
