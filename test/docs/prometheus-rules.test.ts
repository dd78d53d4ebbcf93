/**
 * The Prometheus alerting rules operators load (docs/prometheus/wrtfleet-alerts.yml, docs/ALERTS.md):
 * promtool accepts them and their unit tests pass (each alert fires above its threshold after its
 * `for`, and not below it or before), and every metric they read is one a live controller's
 * /metrics exports, so renaming a metric in server/routes/metrics/ fails here, not in an
 * operator's silent alert.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Controller } from '../../server/controller.js';
import { startInjectedController } from '../support/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';

const repo = path.resolve(import.meta.dirname, '../..');
const RULES = 'docs/prometheus/wrtfleet-alerts.yml';
const RULE_TESTS = 'docs/prometheus/wrtfleet-alerts.test.yml';

/** promtool's exit status and output; promtool missing is a failure, never a skip. */
function promtool(...args: string[]): { status: number | null; output: string } {
  const r = spawnSync('promtool', args, { cwd: repo, encoding: 'utf8' });
  if (r.error)
    throw new Error(
      `promtool could not run (${r.error.message}): install it with \`bash test/system-deps.sh\` (Debian's prometheus package)`,
    );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
}

const rules = (): Rule[] =>
  (parse(readFileSync(path.join(repo, RULES), 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
    (g) => g.rules,
  );

/** PromQL words that are not series: operators, modifiers, and the matching clauses' keywords. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'atan2',
  'inf',
  'nan',
]);

/**
 * The series names an expression reads, with the label names it matches on each: label matchers,
 * strings, ranges and the label lists of by/without/on/ignoring/group_* are set aside, numbers and
 * durations skipped, and a word followed by `(` is a function or an aggregation.
 */
function seriesOf(expr: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const labelsOf = (name: string) => found.get(name) ?? found.set(name, new Set()).get(name)!;
  const text = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  // A series: its name, then its matchers if any (a selector of matchers alone, {__name__=...}, is not read).
  for (const m of text.matchAll(/(\d[\w.]*)|([A-Za-z_:][\w:]*)\s*(\{[^}]*\})?(\s*\()?/g)) {
    const [, number, word, matchers, call] = m;
    if (number !== undefined || word === undefined || call !== undefined || KEYWORDS.has(word.toLowerCase())) continue;
    const labels = labelsOf(word);
    for (const l of (matchers ?? '').matchAll(/([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/g)) labels.add(l[1]!);
  }
  return found;
}

/** Names in an exposition (from its TYPE lines, with a histogram's and a summary's sample suffixes) and each one's sampled label names. */
function exposed(text: string): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.set(name!, new Set());
    const suffixes =
      type === 'histogram' ? ['_bucket', '_sum', '_count'] : type === 'summary' ? ['_sum', '_count'] : [];
    for (const s of suffixes) names.set(name! + s, new Set());
  }
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (!m) continue;
    const labels = names.get(m[1]!) ?? names.set(m[1]!, new Set()).get(m[1]!)!;
    for (const l of (m[2] ?? '').matchAll(/([A-Za-z_]\w*)="/g)) labels.add(l[1]!);
  }
  return names;
}

describe('the Prometheus alerting rules (docs/prometheus/)', () => {
  it('promtool checks the rule file', () => {
    const r = promtool('check', 'rules', RULES);
    expect(r.output).toContain('SUCCESS');
    expect(r.status, r.output).toBe(0);
  });

  it("promtool runs the rules' unit tests, and they pass", () => {
    const r = promtool('test', 'rules', RULE_TESTS);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
  });

  it('the tokenizer finds series and their matchers, not functions, keywords, labels or durations', () => {
    const s = seriesOf(
      'sum without (instance, status) (increase(a_total{status=~"failed|x", job="j"}[15m]) or b unless c offset 15m)' +
        ' / on (job) group_left (x) max by (job) (deriv(d:e:f[5m])) > 0.5 and up{job="wrtfleet"} == 0',
    );
    expect([...s.keys()].sort()).toEqual(['a_total', 'b', 'c', 'd:e:f', 'up']);
    expect([...s.get('a_total')!].sort()).toEqual(['job', 'status']);
  });

  describe('against a live controller (embedded PGlite)', () => {
    let db: TestDatabase;
    let controller: Controller;
    let metrics: string;

    beforeAll(async () => {
      db = await createPgliteDatabase();
      const started = await startInjectedController(db);
      controller = started.controller;
      const m = await started.fetch<string>('/metrics');
      expect(m.status).toBe(200);
      metrics = m.body;
    });

    afterAll(async () => {
      await controller?.close();
      await db?.drop();
    });

    it('every metric the rules read is one /metrics exports, with the labels it exports', () => {
      const live = exposed(metrics);
      const recorded = new Set(rules().flatMap((r) => (r.record ? [r.record] : [])));
      const read = new Map<string, Set<string>>();
      for (const r of rules())
        for (const [name, labels] of seriesOf(r.expr)) {
          const all = read.get(name) ?? read.set(name, new Set()).get(name)!;
          labels.forEach((l) => all.add(l));
        }

      const missing: string[] = [];
      for (const [name, labels] of read) {
        // Prometheus's own series for each target; recording rules' names have a colon.
        if (name === 'up') continue;
        if (name.includes(':')) {
          if (!recorded.has(name)) missing.push(`${name} (no recording rule defines it)`);
          continue;
        }
        const exported = live.get(name);
        if (!exported) {
          missing.push(name);
          continue;
        }
        // Label names can be checked where the empty controller has samples (job and instance are
        // the target's); a counter with no result yet has none.
        if (exported.size === 0) continue;
        for (const l of labels) if (l !== 'job' && l !== 'instance' && !exported.has(l)) missing.push(`${name}{${l}}`);
      }
      expect(missing).toEqual([]);
      // The tokenizer did find the rules' series (an empty parse would pass the check above).
      expect([...read.keys()]).toEqual(
        expect.arrayContaining([
          'up',
          'wrtfleet:routers_offline:ratio',
          'wrtfleet_routers',
          'wrtfleet_apply_results_total',
          'wrtfleet_rollouts',
          'wrtfleet_job_queue_depth',
        ]),
      );
    });
  });
});
