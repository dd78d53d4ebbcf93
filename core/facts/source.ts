import type { RouterHost } from '../host/router-host.js';

/**
 * Reading one fact source (a file or a command) from the router without ever throwing.
 *
 * Every source on a real router can be missing (x86 has no device tree, 19.07 has no
 * os-release on some targets), empty, or garbage (a truncated flash, a binary where text was
 * expected). Each read returns either a value or the reason it has none, and the collector
 * turns reasons into `unknown` entries instead of exceptions.
 */
export type SourceRead<T> = { ok: true; value: T; source: string } | { ok: false; source: string; reason: string };

export function found<T>(source: string, value: T): SourceRead<T> {
  return { ok: true, value, source };
}

export function missing<T>(source: string, reason: string): SourceRead<T> {
  return { ok: false, source, reason };
}

/** U+FFFD appears where utf8 decoding met invalid bytes; control chars never belong in these text files. */
// eslint-disable-next-line no-control-regex -- this rejects control characters
const BINARY_JUNK = /[\u0000-\u0008\u000e-\u001f\u007f\ufffd]/;

/** Reads a text file; missing, empty and binary-junk files come back as reasons. */
export async function readTextFile(host: RouterHost, path: string): Promise<SourceRead<string>> {
  let text: string | null;
  try {
    text = await host.readFile(path);
  } catch (error) {
    return missing(path, `${path} unreadable: ${errorText(error)}`);
  }
  if (text === null) return missing(path, `${path} missing`);
  if (text.trim() === '') return missing(path, `${path} empty`);
  if (BINARY_JUNK.test(text)) return missing(path, `${path} is not text (binary junk)`);
  return found(path, text);
}

/** Reads a binary file (device-tree properties are NUL-separated). */
export async function readBinaryFile(host: RouterHost, path: string): Promise<SourceRead<Buffer>> {
  let data: Buffer | null;
  try {
    data = await host.readBinary(path);
  } catch (error) {
    return missing(path, `${path} unreadable: ${errorText(error)}`);
  }
  if (data === null) return missing(path, `${path} missing`);
  if (data.length === 0) return missing(path, `${path} empty`);
  return found(path, data);
}

/** Runs a command; a missing binary, a failure or empty output come back as reasons. */
export async function runCommand(host: RouterHost, argv: string[]): Promise<SourceRead<string>> {
  const label = argv.join(' ');
  try {
    const result = await host.run(argv, { timeoutMs: 10_000 });
    // 127 is the shell's "command not found"; a host that spawns directly reports ENOENT instead.
    if (result.code === 127 || (result.code === null && /\bENOENT\b/.test(result.stderr))) {
      return missing(label, `\`${label}\` not available`);
    }
    if (result.code !== 0) {
      const detail = result.stderr.trim().split('\n')[0] ?? '';
      return missing(label, `\`${label}\` failed (exit ${result.code ?? 'killed'}${detail ? `: ${detail}` : ''})`);
    }
    if (result.stdout.trim() === '') return missing(label, `\`${label}\` printed nothing`);
    if (BINARY_JUNK.test(result.stdout)) return missing(label, `\`${label}\` printed binary junk`);
    return found(label, result.stdout);
  } catch (error) {
    return missing(label, `\`${label}\` could not run: ${errorText(error)}`);
  }
}

/**
 * One printable line (sysinfo files, device-tree strings, single values): trimmed, trailing
 * NULs removed; null when it contains anything a board name or version would never contain.
 */
export function printableLine(text: string): string | null {
  const line =
    text
      // eslint-disable-next-line no-control-regex -- strips the trailing NULs of device-tree strings
      .replace(/\u0000+$/, '')
      .split('\n')[0]
      ?.trim() ?? '';
  // eslint-disable-next-line no-control-regex -- this rejects control characters, tabs and carriage returns included
  if (line === '' || BINARY_JUNK.test(line) || /[\u0000-\u001f]/.test(line)) return null;
  return line;
}

/** Parses JSON, returning the reason instead of throwing. */
export function parseJson(source: string, text: string): SourceRead<unknown> {
  try {
    return found(source, JSON.parse(text) as unknown);
  } catch (error) {
    return missing(source, `${source} is not valid JSON (${errorText(error)})`);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty printable string field of a parsed JSON object, or null. */
export function stringField(record: Record<string, unknown>, key: string): string | null {
  const value = record[key];
  return typeof value === 'string' ? printableLine(value) : null;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
