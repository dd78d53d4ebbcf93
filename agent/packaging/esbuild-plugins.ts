/**
 * The esbuild plugins that adapt the agent's modules to one bundle file.
 *
 * The datapath finds its objects relative to its own module (agent/datapath/programs.ts:
 * `<repo>/bpf/build`). In the bundle that module is agent.cjs, so the build rewrites that one
 * line to "next to agent.cjs" (or $WRTFLEET_HOME), and fails loudly if the line changed, so a
 * refactor of the datapath cannot silently ship a bundle that looks for objects elsewhere.
 *
 * ssh2's optional native pieces (sshcrypto.node, cpu-features) stay out: ssh2 loads them in a
 * try/catch and falls back to pure JS, which keeps the bundle portable across CPU types.
 */
import type { Plugin } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, which the bundle's module paths are relative to. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PROGRAMS_LINE = "const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');";

export const relocateBpf: Plugin = {
  name: 'wrtfleet-bpf-location',
  setup(b) {
    b.onLoad({ filter: /agent[\\/]datapath[\\/]programs\.ts$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!src.includes(PROGRAMS_LINE))
        throw new Error(
          `agent/datapath/programs.ts no longer contains ${PROGRAMS_LINE}; update agent/packaging/esbuild-plugins.ts`,
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
 * Why: the idle on-router agent's RSS; measured in docs/BENCHMARKS.md#agent-memory.
 */
export const builtinsByRequire: Plugin = {
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
 * from ICU, resident for the life of the process (docs/BENCHMARKS.md#agent-memory). The same instant in
 * UTC milliseconds (`setTime(getTime() + delay)`) needs no time zone and is what grpc-js means
 * (the local form can even be off by the DST shift when the delay crosses a transition).
 * Fails the build if grpc-js stops doing it this way, so the rewrite cannot silently go stale.
 */
const LOCAL_MS = /(\b[\w$.]+)\.setMilliseconds\(\s*\1\.getMilliseconds\(\)\s*\+/g;
export const grpcUtcTimers: Plugin = {
  name: 'wrtfleet-grpc-utc-timers',
  setup(b) {
    b.onLoad({ filter: /@grpc[\\/]grpc-js[\\/]build[\\/]src[\\/][\w-]+\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      const out = src.replace(LOCAL_MS, '$1.setTime($1.getTime() +');
      if (args.path.endsWith('backoff-timeout.js') && out === src)
        throw new Error(
          `${args.path} no longer computes its timers with setMilliseconds(getMilliseconds() + ...); update agent/packaging/esbuild-plugins.ts`,
        );
      if (/\.(?:set|get)(?:Milliseconds|Seconds|Minutes|Hours|Date|Month|FullYear)\(/.test(out))
        throw new Error(
          `${args.path} uses local-time Date accessors this build does not rewrite; update agent/packaging/esbuild-plugins.ts`,
        );
      return { contents: out, loader: 'js' };
    });
  },
};

/**
 * The agent is a gRPC client. grpc-js's index loads its server, the server's interceptors and
 * credentials, and the round-robin, outlier-detection and weighted-round-robin balancers (and
 * ORCA, which those use) at startup all the same: code that would stay on the heap
 * (docs/BENCHMARKS.md#agent-memory).
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
export const grpcClientOnly: Plugin = {
  name: 'wrtfleet-grpc-client-only',
  setup(b) {
    const filter = new RegExp(
      `@grpc[\\\\/]grpc-js[\\\\/]build[\\\\/]src[\\\\/](?:${GRPC_SERVER_SIDE.join('|')})\\.js$`,
    );
    b.onLoad({ filter }, (args) => {
      const part = args.path.split(/[\\/]/).pop();
      return {
        contents: [
          `const missing = (k) => { throw new Error('@grpc/grpc-js/${part}: ' + String(k) + ' is not in the agent bundle (agent/packaging/esbuild-plugins.ts, grpcClientOnly)'); };`,
          "module.exports = new Proxy({ setup() {} }, { get: (t, k) => (k in t ? t[k] : typeof k === 'symbol' || k === 'then' || k === '__esModule' ? undefined : missing(k)) });",
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};
