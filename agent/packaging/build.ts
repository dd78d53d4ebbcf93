/**
 * `npm run agent:bundle`: the agent as ONE file for routers and proxy hosts.
 *
 *   dist/agent/agent.cjs               esbuild bundle of agent/main.ts (node20, minified; see ENTRY_STUB)
 *   dist/agent/bpf/build/bpfel/*.o     the four programs and wf_chain, little-endian (x86_64, aarch64, mipsel)
 *   dist/agent/bpf/build/bpfeb/*.o     big-endian (ath79 mips)
 *   dist/agent/bpf/build/wf-tcx        TCX helper built for THIS machine
 *   dist/agent/bpf/build/<cpu>/wf-tcx.gz  the same, static and gzipped, for mipsel, mips and aarch64 routers
 *                                      (onboarding uploads the fitting one, unpacked)
 *   dist/agent/openwrt/, systemd/      init script, UCI config, proxy unit
 *
 * The datapath finds its objects relative to its own module (agent/datapath/programs.ts:
 * `<repo>/bpf/build`). In the bundle that module is agent.cjs, so the build rewrites that one
 * line to "next to agent.cjs" (or $WRTFLEET_HOME), and fails loudly if the line changed, so a
 * refactor of the datapath cannot silently ship a bundle that looks for objects elsewhere.
 *
 * ssh2's optional native pieces (sshcrypto.node, cpu-features) stay out: ssh2 loads them in a
 * try/catch and falls back to pure JS, which keeps the bundle portable across CPU types.
 *
 * Still one file, but in two layers (SECTIONS below): the code a connected on-router agent
 * runs is plain JavaScript; the parts it never runs at idle (the proxy with ssh2 and yaml, the
 * simulated fleet, the x509/ASN.1 code for enrollment, TypeBox for DesiredStates) are
 * separate bundles stored in agent.cjs brotli-compressed and evaluated on use. V8 keeps
 * a script's whole source in the heap for as long as the script runs, so this is what keeps the
 * idle agent's heap from carrying ~0.9 MB of source it never executes (docs/BENCHMARKS.md, Agent).
 */
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import type { TcxHelperCpu } from '../datapath/programs.js';
import { AGENT_ENTRY_FILE } from './layout.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(ROOT, 'dist/agent');
const BPF = join(ROOT, 'bpf/build');
const PROGRAMS_LINE = "const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');";

const relocateBpf: Plugin = {
  name: 'wrtfleet-bpf-location',
  setup(b) {
    b.onLoad({ filter: /agent[\\/]datapath[\\/]programs\.ts$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!src.includes(PROGRAMS_LINE))
        throw new Error(
          `agent/datapath/programs.ts no longer contains ${PROGRAMS_LINE}; update agent/packaging/build.ts`,
        );
      return {
        contents: src.replace(
          PROGRAMS_LINE,
          'const REPO_ROOT = process.env.WRTFLEET_HOME ?? dirname(fileURLToPath(import.meta.url));',
        ),
        loader: 'ts',
      };
    });
  },
};

/**
 * `import { connect } from 'node:tls'` in an ESM bundle makes Node build an ES module facade
 * for the builtin, which reads every export once, lazy getters included: `tls.rootCertificates`
 * (all bundled root CAs as PEM strings), `crypto.webcrypto`/`subtle` (the WebCrypto modules),
 * and so on, at startup, whether or not the agent ever uses them. Requiring the builtin instead
 * (through the bundle's `require`, see the banner) touches an export only when the code does.
 * Measured on the idle on-router agent: docs/BENCHMARKS.md, Agent.
 */
const builtinsByRequire: Plugin = {
  name: 'wrtfleet-builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) =>
      args.kind === 'import-statement' || args.kind === 'dynamic-import'
        ? { path: args.path, namespace: 'wf-builtin' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'wf-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * grpc-js times its backoff with `date.setMilliseconds(date.getMilliseconds() + delay)`: local
 * time, so the first retry timer (every connection starts one) makes V8 load the host time zone
 * from ICU, ~0.6 MiB of the node binary's pages for the life of the process. The same instant in
 * UTC milliseconds (`setTime(getTime() + delay)`) needs no time zone and is what grpc-js means
 * (the local form can even be off by the DST shift when the delay crosses a transition).
 * Fails the build if grpc-js stops doing it this way, so the rewrite cannot silently go stale.
 */
const LOCAL_MS = /(\b[\w$.]+)\.setMilliseconds\(\s*\1\.getMilliseconds\(\)\s*\+/g;
const grpcUtcTimers: Plugin = {
  name: 'wrtfleet-grpc-utc-timers',
  setup(b) {
    b.onLoad({ filter: /@grpc[\\/]grpc-js[\\/]build[\\/]src[\\/][\w-]+\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      const out = src.replace(LOCAL_MS, '$1.setTime($1.getTime() +');
      if (args.path.endsWith('backoff-timeout.js') && out === src)
        throw new Error(
          `${args.path} no longer computes its timers with setMilliseconds(getMilliseconds() + ...); update agent/packaging/build.ts`,
        );
      if (/\.(?:set|get)(?:Milliseconds|Seconds|Minutes|Hours|Date|Month|FullYear)\(/.test(out))
        throw new Error(
          `${args.path} uses local-time Date accessors this build does not rewrite; update agent/packaging/build.ts`,
        );
      return { contents: out, loader: 'js' };
    });
  },
};

/**
 * The agent is a gRPC client. grpc-js's index loads its server, the server's interceptors and
 * credentials, and the round-robin, outlier-detection and weighted-round-robin balancers (and
 * ORCA, which those use) at startup all the same: 80 KB of code that would stay on the heap.
 * The agent never runs them: its channel has no service config, so it uses pick_first. Each is
 * replaced by a stub whose `setup()` (the balancers' registration) does nothing and whose every
 * other member throws, naming itself, so a use would be loud, not a silent undefined.
 */
const GRPC_SERVER_SIDE = [
  'server',
  'server-call',
  'server-interceptors',
  'server-credentials',
  'load-balancer-round-robin',
  'load-balancer-outlier-detection',
  'load-balancer-weighted-round-robin',
  'orca',
];
const grpcClientOnly: Plugin = {
  name: 'wrtfleet-grpc-client-only',
  setup(b) {
    const filter = new RegExp(
      `@grpc[\\\\/]grpc-js[\\\\/]build[\\\\/]src[\\\\/](?:${GRPC_SERVER_SIDE.join('|')})\\.js$`,
    );
    b.onLoad({ filter }, (args) => {
      const part = args.path.split(/[\\/]/).pop();
      return {
        contents: [
          `const missing = (k) => { throw new Error('@grpc/grpc-js/${part}: ' + String(k) + ' is not in the agent bundle (agent/packaging/build.ts, grpcClientOnly)'); };`,
          "module.exports = new Proxy({ setup() {} }, { get: (t, k) => (k in t ? t[k] : typeof k === 'symbol' || k === 'then' || k === '__esModule' ? undefined : missing(k)) });",
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * Lazily evaluated parts of the bundle: name -> entry module (relative to the repo). Each is
 * reached only through a dynamic `import()` (or, for proto-loader, a `require` inside a function
 * of grpc-js), which the build points at the section loader instead. Modules a section shares
 * with the always-loaded part stay there, once: the section gets them from it (`wf-core:`), so
 * a RouterAgent, grpc-js or a credentials object is the same in both.
 */
const SECTIONS: Record<string, string> = {
  // The proxy placement: ssh2 (+ its crypto) and yaml. Never on a router.
  proxy: 'agent/proxy/index.ts',
  // `agent fleet`, for tests and demos.
  fleet: 'agent/sim/simulated-fleet.ts',
  // @peculiar/x509 and its ASN.1 schemas: only to make a CSR (enrollment, certificate renewal). Transient.
  x509: 'core/x509.ts',
  // TypeBox, for the profile schema: loaded for each DesiredState, released after it. Transient.
  'profile-spec': 'core/profile-spec.ts',
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
function sectionRefs(self: string | undefined, coreInputs?: Set<string>): Plugin {
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
              `${args.importer} imports ${args.path} statically: it is the lazy section "${section}" (agent/packaging/build.ts SECTIONS); import it with await import() or take it out of SECTIONS`,
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
 * lives, and Node keeps an ES module's script for the life of the process. An `agent.mjs` kept
 * its whole 0.8 MB text, lazy sections included, on the heap forever. Here the stub's own script
 * (the whole file) is garbage once it has run, as nothing it defines survives it (so no closure
 * in ENTRY_STUB, not even an error handler: a failure is an unhandled rejection, which Node
 * reports and exits 1 on), and the code that runs on keeps only its own text (0.49 MB). CommonJS
 * also spares Node's ES module loader. Measured with the init script's flags: idle RSS
 * 47.4 -> 46.6 MiB, after an apply 48.3 -> 47.7 MiB (docs/BENCHMARKS.md, Agent).
 *
 * A comment ends at the first `*' + '/`, which minified code can contain (regular expressions,
 * strings): storeInComment() escapes it with a byte the build checks the code never has, and
 * the stub undoes that when it reads the code.
 */
const CORE_START = '/*wf-core\n';
const CORE_END = '\nwf-core*/';
const COMMENT_END_ESCAPE = '\u0001';
const ENTRY_STUB = [
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

function storeInComment(js: string): string {
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
 * cache with its source and code after its last function died (1.2 MB kept for a 270 KB test
 * script, measured with --expose-gc).
 */
const PAYLOAD_TRAILER = '/*wf-sections';
const TRANSIENT_SECTIONS = new Set(['profile-spec', 'x509']);

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

function sectionLoader(buildId: string, shared: string[]): Plugin {
  const source = sectionLoaderSource(buildId, shared);
  return {
    name: 'wrtfleet-section-loader',
    setup(b) {
      b.onResolve({ filter: /^wf-sections$/ }, () => ({ path: 'wf-sections', namespace: 'wf-loader' }));
      b.onLoad({ filter: /.*/, namespace: 'wf-loader' }, () => ({ contents: source, loader: 'js', resolveDir: ROOT }));
    },
  };
}

export interface AgentBundle {
  bundle: string;
  bytes: number;
  objects: string[];
  /** Each lazy section: its JavaScript, and what it takes in agent.cjs (brotli, base64). */
  sections: Record<string, { bytes: number; storedBytes: number }>;
  /** Size of each wf-tcx in the bundle, by path under bpf/build ("wf-tcx", "mipsel/wf-tcx", ...). */
  helpers: Record<string, number>;
}

export async function bundleAgent(): Promise<AgentBundle> {
  for (const endian of ['bpfel', 'bpfeb']) {
    if (!existsSync(join(BPF, endian, 'set_ip_ttl.o')))
      throw new Error(`missing ${join(BPF, endian)}: run npm run bpf:build first`);
  }
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const bundle = join(OUT, AGENT_ENTRY_FILE);
  const common: BuildOptions = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    external: ['*.node', 'cpu-features'],
    metafile: true,
    logLevel: 'warning',
  };
  // The always-loaded part: ESM syntax (it has top-level await), but run as the body of an async
  // function by the entry stub (ENTRY_STUB), which passes what CommonJS dependencies (grpc-js)
  // use: require, __filename, __dirname.
  const core: BuildOptions = {
    ...common,
    entryPoints: [join(ROOT, 'agent/main.ts')],
    format: 'esm',
    write: false,
    define: { 'import.meta.url': '__wfMetaUrl' },
  };
  // 1. What the always-loaded part holds (sections stubbed out).
  const first = await build({
    ...core,
    plugins: [
      relocateBpf,
      builtinsByRequire,
      grpcClientOnly,
      grpcUtcTimers,
      sectionRefs(undefined),
      sectionLoader('', []),
    ],
  });
  const coreInputs = new Set(Object.keys(first.metafile!.inputs));
  for (const name of Object.keys(SECTIONS))
    if (!coreInputs.has(`wf-section:${name}`))
      throw new Error(
        `lazy section "${name}" (${SECTIONS[name]}) is not imported anywhere any more: update SECTIONS in agent/packaging/build.ts`,
      );
  // 2. Each section on its own, sharing what the always-loaded part already has.
  const payloads: Record<string, string> = {};
  const shared = new Set<string>();
  const sectionBytes: Record<string, number> = {};
  for (const [name, entry] of Object.entries(SECTIONS)) {
    const r = await build({
      ...common,
      entryPoints: [join(ROOT, entry)],
      outfile: join(OUT, `${name}.section.js`),
      write: false,
      format: 'cjs',
      define: {
        'import.meta.url': '__wfMetaUrl',
        'import.meta.dirname': '__dirname',
        'import.meta.filename': '__filename',
      },
      plugins: [relocateBpf, grpcUtcTimers, sectionRefs(name, coreInputs)],
    });
    const out = r.outputFiles!.find((f) => f.path.endsWith('.section.js'))!;
    for (const imp of Object.values(r.metafile!.outputs).flatMap((o: Metafile['outputs'][string]) => o.imports))
      if (imp.path.startsWith('wf-core:')) shared.add(imp.path.slice(8));
    sectionBytes[name] = out.contents.length;
    payloads[name] = brotliCompressSync(out.contents, {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: out.contents.length },
    }).toString('base64');
  }
  // 3. The always-loaded part with the sections in it.
  const buildId = createHash('sha256').update(JSON.stringify(payloads)).digest('hex').slice(0, 16);
  const last = await build({
    ...core,
    plugins: [
      relocateBpf,
      builtinsByRequire,
      grpcClientOnly,
      grpcUtcTimers,
      sectionRefs(undefined),
      sectionLoader(buildId, [...shared].sort()),
    ],
  });
  const coreJs = last.outputFiles![0]!.text;
  const statements = Object.values(last.metafile!.outputs).flatMap((o) =>
    o.imports.filter((i) => i.kind === 'import-statement'),
  );
  if (statements.length > 0 || /^\s*(?:import|export)\s/m.test(coreJs))
    throw new Error(
      `the always-loaded part has ES module imports or exports (${statements.map((i) => i.path).join(', ')}); the entry stub runs it as a function body`,
    );
  // The sections, after the code: one comment the JavaScript never reads as a value (see sectionLoader).
  writeFileSync(
    bundle,
    `${ENTRY_STUB}\n${CORE_START}${storeInComment(coreJs)}${CORE_END}${payloadTrailer(buildId, payloads)}`,
  );
  chmodSync(bundle, 0o755);
  const objects: string[] = [];
  for (const endian of ['bpfel', 'bpfeb']) {
    mkdirSync(join(OUT, 'bpf/build', endian), { recursive: true });
    for (const f of readdirSync(join(BPF, endian)).filter((n) => n.endsWith('.o'))) {
      copyFileSync(join(BPF, endian, f), join(OUT, 'bpf/build', endian, f));
      objects.push(`${endian}/${f}`);
    }
  }
  // The helper for this machine, and the static builds for routers' CPUs, gzipped: static glibc
  // makes each ~0.6 MB, and a router gets only its own (onboarding unpacks the one that fits).
  const helpers: Record<string, number> = {};
  if (existsSync(join(BPF, 'wf-tcx'))) {
    copyFileSync(join(BPF, 'wf-tcx'), join(OUT, 'bpf/build/wf-tcx'));
    chmodSync(join(OUT, 'bpf/build/wf-tcx'), 0o755);
    helpers['wf-tcx'] = statSync(join(OUT, 'bpf/build/wf-tcx')).size;
  }
  for (const cpu of ['mipsel', 'mips', 'aarch64'] satisfies TcxHelperCpu[]) {
    if (!existsSync(join(BPF, cpu, 'wf-tcx'))) continue;
    mkdirSync(join(OUT, 'bpf/build', cpu), { recursive: true });
    const packed = gzipSync(readFileSync(join(BPF, cpu, 'wf-tcx')), { level: 9 });
    writeFileSync(join(OUT, 'bpf/build', cpu, 'wf-tcx.gz'), packed);
    helpers[`${cpu}/wf-tcx.gz`] = packed.length;
  }
  const here = dirname(fileURLToPath(import.meta.url));
  for (const [dir, files] of [
    ['openwrt', ['wrtfleet-agent.init', 'wrtfleet.config']],
    ['systemd', ['wrtfleet-proxy.service']],
  ] as const) {
    mkdirSync(join(OUT, dir), { recursive: true });
    for (const f of files) copyFileSync(join(here, dir, f), join(OUT, dir, f));
  }
  const sections = Object.fromEntries(
    Object.keys(SECTIONS).map((n) => [n, { bytes: sectionBytes[n]!, storedBytes: payloads[n]!.length }]),
  );
  return { bundle, bytes: statSync(bundle).size, objects, sections, helpers };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await bundleAgent();
  console.log(`agent bundle: ${r.bundle} (${(r.bytes / 1024).toFixed(0)} KiB), ${r.objects.length} BPF objects`);
  for (const [name, s] of Object.entries(r.sections))
    console.log(
      `  lazy section ${name}: ${(s.bytes / 1024).toFixed(0)} KiB of JavaScript, ${(s.storedBytes / 1024).toFixed(0)} KiB in agent.cjs`,
    );
}
