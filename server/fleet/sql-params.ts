/** Collects bound parameters: `param(v)` returns its placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];
  param(value: unknown): string {
    return `$${this.values.push(value)}`;
  }
}
