/**
 * Text with a size bound in bytes, cut at a line boundary: what a command result, a
 * diagnostic section and the stored copies of both are held to. The agent cuts before
 * sending and the controller again before storing, with the same function, so an agent that
 * sends more (an older or a broken one) still cannot grow the database.
 */

/** CommandResult.output: at most this many bytes of UTF-8 (proto/wrtfleet/agent/v1/agent.proto). */
export const COMMAND_OUTPUT_MAX_BYTES = 64 * 1024;
/** One DiagnosticSection's text. */
export const DIAGNOSTIC_SECTION_MAX_BYTES = 64 * 1024;
/** Every section of one diagnostic bundle together. */
export const DIAGNOSTICS_MAX_BYTES = 256 * 1024;
/** Sections in one bundle. */
export const DIAGNOSTIC_SECTIONS_MAX = 8;
/** CommandResult.error. */
export const COMMAND_ERROR_MAX_CHARS = 1024;

export interface BoundedText {
  text: string;
  truncated: boolean;
}

/** Which end of the text survives a cut: a log's newest lines are at its end. */
export type KeptEnd = 'head' | 'tail';

/** The UTF-8 size of `text` in bytes. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * `text` if it fits in `maxBytes`, else its first (head) or last (tail) lines that fit with a
 * marker line saying how much was left out. The cut falls on a line boundary when one is near;
 * otherwise inside a line, but never inside a UTF-8 sequence.
 */
export function boundText(text: string, maxBytes: number, keep: KeptEnd = 'head'): BoundedText {
  const total = utf8Bytes(text);
  if (total <= maxBytes) return { text, truncated: false };
  const marker = (dropped: number) =>
    keep === 'head' ? `\n[cut: ${dropped} more bytes not shown]\n` : `[cut: ${dropped} earlier bytes not shown]\n`;
  // The marker's own size, with room for the largest number it can name.
  const budget = Math.max(0, maxBytes - utf8Bytes(marker(total)));
  const bytes = Buffer.from(text, 'utf8');
  let kept: Buffer;
  if (keep === 'head') {
    let end = budget;
    // A line boundary in the second half of the budget, if there is one: a line is not cut
    // in two, but one long line does not cost the whole budget either.
    const newline = bytes.lastIndexOf(0x0a, end - 1);
    if (newline >= budget / 2) end = newline + 1;
    // Never end inside a multi-byte sequence: back up over continuation bytes.
    while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
    kept = bytes.subarray(0, end);
  } else {
    let start = bytes.length - budget;
    const newline = bytes.indexOf(0x0a, start);
    if (newline >= 0 && newline < bytes.length - 1 && newline - start <= budget / 2) start = newline + 1;
    while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
    kept = bytes.subarray(start);
  }
  const dropped = total - kept.length;
  const body = kept.toString('utf8');
  return {
    text: keep === 'head' ? `${body.replace(/\n$/, '')}${marker(dropped)}` : `${marker(dropped)}${body}`,
    truncated: true,
  };
}

/** `text` cut to `max` characters (for short fields: an error, a command line). */
export function boundChars(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
