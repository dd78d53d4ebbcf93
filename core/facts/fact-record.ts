import { parseJson, type SourceRead } from './source.js';
import type { UnknownField } from './types.js';

/** Bookkeeping for one collection: unknown fields, where values came from, broken sources. */
export class FactRecord {
  private readonly unknownFields = new Map<string, string>();
  private readonly sources: Record<string, string> = {};
  private readonly problems: string[] = [];

  unknown(field: string, reason: string): void {
    this.unknownFields.set(field, reason);
  }
  resolve(field: string): void {
    this.unknownFields.delete(field);
  }
  evidence(field: string, source: string): void {
    this.sources[field] = source;
  }
  problem(text: string): void {
    if (!this.problems.includes(text)) this.problems.push(text);
  }
  /** True when the read succeeded; a source that exists but is broken is a problem worth showing. */
  noteRead<T>(read: SourceRead<T>): read is { ok: true; value: T; source: string } {
    if (!read.ok && !/( missing| not available)$/.test(read.reason)) this.problem(read.reason);
    return read.ok;
  }
  unknowns(): UnknownField[] {
    return [...this.unknownFields].map(([field, reason]) => ({ field, reason }));
  }
  evidenceMap(): Record<string, string> {
    return { ...this.sources };
  }
  problemList(): string[] {
    return [...this.problems];
  }
}

/** Why a source gave nothing usable, for the `unknown` entry of a field it would have filled. */
export function unavailable(read: SourceRead<unknown>): string {
  return read.ok ? `${read.source} unusable` : read.reason;
}

/** Parses a successful read, recording a problem when its content is garbage. */
export function parsed<T>(
  record: FactRecord,
  read: SourceRead<string>,
  parse: (text: string) => T | null,
  garbage: string,
): T | null {
  if (!record.noteRead(read)) return null;
  const value = parse(read.value);
  if (value === null) record.problem(`${read.source} ${garbage}`);
  return value;
}

/** Parses JSON text and then its shape, recording a problem when either is garbage. */
export function jsonThen<T>(
  record: FactRecord,
  source: string,
  text: string,
  parse: (json: unknown) => T | null,
): T | null {
  const json = parseJson(source, text);
  if (!json.ok) {
    record.problem(json.reason);
    return null;
  }
  return parse(json.value);
}
