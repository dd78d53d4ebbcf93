/**
 * The two layers of agent.cjs.
 *
 * Still one file, but in two layers (SECTIONS below): the code a connected on-router agent
 * runs is plain JavaScript; the parts it never runs at idle (the proxy with ssh2 and yaml, the
 * simulated fleet, the x509/ASN.1 code for enrollment, TypeBox for DesiredStates) are
 * separate bundles stored in agent.cjs brotli-compressed and evaluated on use. V8 keeps
 * a script's whole source in the heap for as long as the script runs, so this keeps the idle
 * agent's heap from carrying source it never executes. Why: the on-router memory budget; measured
 * in docs/BENCHMARKS.md#agent-memory.
 */
import type { Plugin } from 'esbuild';
import { isBuiltin } from 'node:module';
import { join, relative, sep } from 'node:path';
import { REPO_ROOT as ROOT } from './esbuild-plugins.js';

/**
 * Lazily evaluated parts of the bundle: name -> entry module (relative to the repo). Each is
 * reached only through a dynamic `import()` (or, for proto-loader, a `require` inside a function
 * of grpc-js), which the build points at the section loader instead. Modules a section shares
 * with the always-loaded part stay there, once: the section gets them from it (`wf-core:`), so
 * a RouterAgent, grpc-js or a credentials object is the same in both.
 */
export const SECTIONS: Record<string, string> = {
  // The proxy placement: ssh2 (+ its crypto) and yaml. Never on a router.
  proxy: 'agent/proxy/index.ts',
  // `agent fleet`, for tests and demos.
  fleet: 'agent/sim/simulated-fleet.ts',
  // @peculiar/x509 and its ASN.1 schemas: only to make a CSR (enrollment, certificate renewal). Transient.
  x509: 'core/x509.ts',
  // TypeBox, for the profile schema: loaded for each DesiredState, released after it. Transient.
  'profile-spec': 'core/profile-spec.ts',
  // The diagnostic bundle's collectors: only when an operator asks for one. Transient.
  diagnostics: 'agent/commands/diagnostics.ts',
  // grpc-js requires it only to serve channelz or ORCA, which an agent never does.
  'proto-loader': 'node_modules/@grpc/proto-loader/build/src/index.js',
};
const SKIP_SECTION_RESOLVE = Symbol('wf-section-resolve');
const rel = (path: string) => relative(ROOT, path).split(sep).join('/');
const sectionOf = (path: string) => {
  const p = path.split(sep).join('/');
  // A package may be installed anywhere up the tree (hoisted, linked): match it by its path inside node_modules.
  return Object.entries(SECTIONS).find(
    ([, entry]) => rel(path) === entry || (entry.startsWith('node_modules/') && p.endsWith(`/${entry}`)),
  )?.[0];
};

/** Points imports of a section's entry at the loader (the always-loaded part, and one section using another). */
export function sectionRefs(self: string | undefined, coreInputs?: Set<string>): Plugin {
  return {
    name: 'wrtfleet-sections',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (
          args.pluginData === SKIP_SECTION_RESOLVE ||
          args.kind === 'entry-point' ||
          isBuiltin(args.path) ||
          args.namespace !== 'file'
        )
          return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: SKIP_SECTION_RESOLVE,
        });
        if (r.errors.length > 0 || r.external || r.namespace !== 'file') return undefined;
        const section = sectionOf(r.path);
        if (self === undefined) {
          // The always-loaded part: a section is reached only lazily, through the loader.
          if (!section) return undefined;
          if (args.kind !== 'dynamic-import' && args.kind !== 'require-call')
            throw new Error(
              `${args.importer} imports ${args.path} statically: it is the lazy section "${section}" (agent/packaging/sections.ts SECTIONS); import it with await import() or take it out of SECTIONS`,
            );
          return { path: section, namespace: 'wf-section' };
        }
        if (section && section !== self) return { path: `wf-section:${section}`, external: true };
        if (coreInputs?.has(rel(r.path))) return { path: `wf-core:${rel(r.path)}`, external: true };
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'wf-section' }, (args) => ({
        contents: `module.exports = require('wf-sections').${TRANSIENT_SECTIONS.has(args.path) ? 'transient' : 'load'}(${JSON.stringify(args.path)});`,
        loader: 'js',
        resolveDir: ROOT,
      }));
    },
  };
}

/**
 * The entry, agent.cjs: a CommonJS stub that reads the always-loaded code from a comment of its
 * own file and runs it through vm.compileFunction, inside an async function (top-level await).
 *
 * Why not an ES module: V8 keeps a script's whole source for as long as any of its functions
 * lives, and Node keeps an ES module's script for the life of the process: an `agent.mjs` kept
 * its whole text, lazy sections included, on the heap forever. Here the stub's own script
 * (the whole file) is garbage once it has run, as nothing it defines survives it (so no closure
 * in ENTRY_STUB, not even an error handler: a failure is an unhandled rejection, which Node
 * reports and exits 1 on), and the code that runs on keeps only its own text. CommonJS also
 * spares Node's ES module loader. Why: the idle agent's RSS; measured in
 * docs/BENCHMARKS.md#agent-memory.
 *
 * A comment ends at the first `*' + '/`, which minified code can contain (regular expressions,
 * strings): storeInComment() escapes it with a byte the build checks the code never has, and
 * the stub undoes that when it reads the code.
 */
export const CORE_START = '/*wf-core\n';
export const CORE_END = '\nwf-core*/';
const COMMENT_END_ESCAPE = '\u0001';
export const ENTRY_STUB = [
  '#!/usr/bin/env node',
  "'use strict';",
  '{',
  "  const file = require('node:fs').readFileSync(__filename);",
  `  const start = file.indexOf(${JSON.stringify(`\n${CORE_START}`)}) + ${CORE_START.length + 1};`,
  `  const code = file.toString('latin1', start, file.indexOf(${JSON.stringify(CORE_END)}, start)).replaceAll(${JSON.stringify(`*${COMMENT_END_ESCAPE}/`)}, '*/');`,
  "  require('node:vm')",
  "    .compileFunction(`return (async () => {'use strict';\n${code}\n})();`, ['require', '__filename', '__dirname', '__wfRequire', '__wfMetaUrl'], { filename: __filename })",
  "    (require, __filename, __dirname, require('node:module').createRequire, require('node:url').pathToFileURL(__filename).href);",
  '}',
].join('\n');

export function storeInComment(js: string): string {
  if (js.includes(COMMENT_END_ESCAPE))
    throw new Error('the always-loaded code contains U+0001, which the entry stub uses to escape comment ends');
  if (js.includes(CORE_END)) throw new Error(`the always-loaded code contains ${JSON.stringify(CORE_END)}`);
  return js.replaceAll('*/', `*${COMMENT_END_ESCAPE}/`);
}

/**
 * The loader, in the always-loaded part: decompresses a section, runs it as a CommonJS module
 * (its `require` gives it the always-loaded modules it shares, other sections, and Node's
 * builtins) and returns its exports.
 *
 * The compressed sections are not JavaScript values: they sit in a comment at the end of
 * agent.cjs (PAYLOAD_TRAILER), and the loader reads the one it needs from the file when it needs
 * it. A string literal would stay on the heap once its function ran (bytecode keeps its
 * constants), 35-92 KB per section. The trailer names the build, so a section is never taken
 * from an agent.cjs that was replaced under the running process (an upgrade in progress).
 *
 * A section is kept once loaded, except the TRANSIENT ones: those are held weakly and loaded
 * again if they were collected. Their importers get a view whose getters resolve against the
 * live copy, so the section's code, its source and its data are garbage as soon as the last
 * caller returns: the profile schema (used for one DesiredState, then idle for days) and the x509
 * code (a CSR at enrollment and at each certificate renewal, every ~16 h). They are
 * compiled with vm.compileFunction: a vm.Script (runInThisContext) stays in V8's compilation
 * cache with its source and code after its last function died.
 */
const PAYLOAD_TRAILER = '/*wf-sections';
const TRANSIENT_SECTIONS = new Set(['profile-spec', 'x509', 'diagnostics']);

/** The comment at the end of agent.cjs: the build id, then one `name:base64(brotli(js))` line per section. */
export function payloadTrailer(buildId: string, payloads: Record<string, string>): string {
  return `\n${PAYLOAD_TRAILER} ${buildId}\n${Object.entries(payloads)
    .map(([name, b64]) => `${name}:${b64}\n`)
    .join('')}*/\n`;
}

/**
 * The loader's JavaScript (a CommonJS module: `module.exports = { load, transient, loaded }`).
 * It expects `__wfRequire` (module.createRequire) and `__filename`, which the entry stub
 * (ENTRY_STUB) passes to the always-loaded code.
 */
export function sectionLoaderSource(buildId: string, shared: string[]): string {
  return [
    "const { brotliDecompressSync } = require('node:zlib');",
    "const { readFileSync } = require('node:fs');",
    "const { compileFunction } = require('node:vm');",
    "const { pathToFileURL } = require('node:url');",
    `const shared = {${shared.map((m) => `${JSON.stringify(m)}: () => require(${JSON.stringify(join(ROOT, m))})`).join(',')}};`,
    `const BUILD = ${JSON.stringify(buildId)};`,
    'const nodeRequire = __wfRequire(__filename);',
    '/* Sections kept for the life of the process, those being evaluated (cycles), transient ones held weakly. */',
    'const kept = new Map();',
    'const evaluating = new Map();',
    'const weak = new Map();',
    'function payload(name) {',
    "  const text = readFileSync(__filename, 'latin1');",
    `  const at = text.lastIndexOf(${JSON.stringify(`
${PAYLOAD_TRAILER} `)});`,
    "  const build = at < 0 ? '' : text.slice(at + " +
      String(PAYLOAD_TRAILER.length + 2) +
      ", text.indexOf('\\n', at + 1));",
    '  if (build !== BUILD) throw new Error(`agent bundle: ${__filename} is not the build this agent runs (${BUILD}, the file has ${build || "no sections"}): restart the agent`);',
    "  const key = '\\n' + name + ':';",
    '  const start = text.indexOf(key, at);',
    '  if (start < 0) throw new Error(`agent bundle: no section ${name}`);',
    "  return Buffer.from(text.slice(start + key.length, text.indexOf('\\n', start + key.length)), 'base64');",
    '}',
    'function evaluate(name) {',
    '  const m = { exports: {} };',
    '  evaluating.set(name, m);',
    '  try {',
    "    const code = brotliDecompressSync(payload(name)).toString('utf8');",
    "    const fn = compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname', '__wfMetaUrl'], { filename: `${__filename}#${name}` });",
    "    const sectionRequire = (id) => (id.startsWith('wf-core:') ? shared[id.slice(8)]() : id.startsWith('wf-section:') ? load(id.slice(11)) : nodeRequire(id));",
    '    fn.call(m.exports, m.exports, sectionRequire, m, __filename, __dirname, pathToFileURL(__filename).href);',
    '  } finally {',
    '    evaluating.delete(name);',
    '  }',
    '  return m.exports;',
    '}',
    'function live(name) {',
    '  return kept.get(name) ?? evaluating.get(name)?.exports ?? weak.get(name)?.deref();',
    '}',
    'function load(name) {',
    '  if (kept.has(name)) return kept.get(name);',
    '  if (evaluating.has(name)) return evaluating.get(name).exports; // a cycle: what it exported so far',
    '  const e = weak.get(name)?.deref() ?? evaluate(name);',
    '  kept.set(name, e);',
    '  weak.delete(name);',
    '  return e;',
    '}',
    'function current(name) {',
    '  let e = live(name);',
    '  if (!e) {',
    '    e = evaluate(name);',
    '    weak.set(name, new WeakRef(e));',
    '  }',
    '  return e;',
    '}',
    'function transient(name) {',
    '  const view = {};',
    '  const first = current(name);',
    '  for (const k of Object.keys(first)) Object.defineProperty(view, k, { enumerable: true, get: () => current(name)[k] });',
    "  if (first.__esModule) Object.defineProperty(view, '__esModule', { value: true });",
    '  return view;',
    '}',
    'module.exports = { load, transient, loaded: (name) => live(name) !== undefined };',
  ].join('\n');
}

export function sectionLoader(buildId: string, shared: string[]): Plugin {
  const source = sectionLoaderSource(buildId, shared);
  return {
    name: 'wrtfleet-section-loader',
    setup(b) {
      b.onResolve({ filter: /^wf-sections$/ }, () => ({ path: 'wf-sections', namespace: 'wf-loader' }));
      b.onLoad({ filter: /.*/, namespace: 'wf-loader' }, () => ({ contents: source, loader: 'js', resolveDir: ROOT }));
    },
  };
}
