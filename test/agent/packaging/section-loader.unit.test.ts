/**
 * The bundle's section loader (agent/packaging/sections.ts), its real source run in a child node
 * with --expose-gc: a transient section is evaluated on use, garbage once its last user returns
 * (heap back to where it was), evaluated again on the next use; a kept section stays; a payload
 * is only taken from the build the process runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { payloadTrailer, sectionLoaderSource } from '../../../agent/packaging/sections.js';

/** A section that is heavy while loaded: ~4 MB of strings reachable from its exports. */
const HEAVY = `
  const table = Array.from({ length: 40000 }, (_, i) => 'row ' + i + ' ' + 'x'.repeat(60));
  exports.evaluations = (globalThis.__evaluations = (globalThis.__evaluations || 0) + 1);
  exports.rows = () => table.length;
`;

function harness(fileBuild: string, runBuild: string, body: string): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'wf-sections-'));
  const file = join(dir, 'agent.cjs');
  const payloads = {
    heavy: brotliCompressSync(HEAVY).toString('base64'),
    kept: brotliCompressSync('exports.n = 42;').toString('base64'),
  };
  writeFileSync(
    file,
    [
      "const __wfRequire = require('node:module').createRequire;",
      'const sections = (() => { const module = { exports: {} };',
      sectionLoaderSource(runBuild, []),
      'return module.exports; })();',
      "const used = () => require('node:v8').getHeapStatistics().used_heap_size;",
      '(async () => {',
      body,
      '})().catch((e) => { console.log(JSON.stringify({ error: e.message })); });',
    ].join('\n') + payloadTrailer(fileBuild, payloads),
  );
  return JSON.parse(execFileSync(process.execPath, ['--expose-gc', file], { encoding: 'utf8' })) as Record<
    string,
    unknown
  >;
}

describe('bundle section loader', () => {
  it('a transient section is released after use and evaluated again when used again; a kept one stays', () => {
    const r = harness(
      'b1',
      'b1',
      `
      gc(); const base = used();
      let view = sections.transient('heavy');
      const rows = view.rows();
      const loadedDuringUse = sections.loaded('heavy');
      const grown = used() - base;
      await new Promise((r) => setTimeout(r, 0)); // a WeakRef target is kept until the job ends
      gc();
      const releasedAfterGc = !sections.loaded('heavy');
      const residual = used() - base;
      const again = view.rows();
      const evaluations = view.evaluations;
      const kept = sections.load('kept').n;
      await new Promise((r) => setTimeout(r, 0)); gc();
      console.log(JSON.stringify({ rows, loadedDuringUse, grown, releasedAfterGc, residual, again, evaluations, kept, keptAfterGc: sections.loaded('kept') }));
    `,
    );
    expect(r).toMatchObject({
      rows: 40000,
      loadedDuringUse: true,
      releasedAfterGc: true,
      again: 40000,
      evaluations: 2,
      kept: 42,
      keptAfterGc: true,
    });
    expect(Number(r.grown)).toBeGreaterThan(3e6);
    // Its source, code and data went with it (vm.compileFunction: no compilation cache entry).
    expect(Number(r.residual)).toBeLessThan(300e3);
  });

  it('refuses a payload from an agent.cjs that is not the running build (replaced under a running agent)', () => {
    const r = harness('new-build', 'old-build', `sections.transient('heavy').rows();`);
    expect(String(r.error)).toMatch(
      /is not the build this agent runs \(old-build, the file has new-build\): restart the agent/,
    );
  });
});
