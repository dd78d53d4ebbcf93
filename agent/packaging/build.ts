/**
 * `npm run agent:bundle`: the agent as ONE file for routers and proxy hosts.
 *
 *   dist/agent/agent.mjs               esbuild bundle of agent/main.ts (ESM, node20, minified)
 *   dist/agent/bpf/build/bpfel/*.o     the four programs and wf_chain, little-endian (x86_64, aarch64, mipsel)
 *   dist/agent/bpf/build/bpfeb/*.o     big-endian (ath79 mips)
 *   dist/agent/bpf/build/wf-tcx        TCX helper built for THIS machine (cross-compile for a router)
 *   dist/agent/openwrt/, systemd/      init script, UCI config, proxy unit
 *
 * The datapath finds its objects relative to its own module (agent/datapath/programs.ts:
 * `<repo>/bpf/build`). In the bundle that module is agent.mjs, so the build rewrites that one
 * line to "next to agent.mjs" (or $WRTFLEET_HOME), and fails loudly if the line changed, so a
 * refactor of the datapath cannot silently ship a bundle that looks for objects elsewhere.
 *
 * ssh2's optional native pieces (sshcrypto.node, cpu-features) stay out: ssh2 loads them in a
 * try/catch and falls back to pure JS, which keeps the bundle portable across CPU types.
 */
import { build, type Plugin } from 'esbuild';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(ROOT, 'dist/agent');
const BPF = join(ROOT, 'bpf/build');
const PROGRAMS_LINE = "const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');";

const relocateBpf: Plugin = {
  name: 'wrtfleet-bpf-location',
  setup(b) {
    b.onLoad({ filter: /agent[\\/]datapath[\\/]programs\.ts$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!src.includes(PROGRAMS_LINE)) throw new Error(`agent/datapath/programs.ts no longer contains ${PROGRAMS_LINE}; update agent/packaging/build.ts`);
      return { contents: src.replace(PROGRAMS_LINE, 'const REPO_ROOT = process.env.WRTFLEET_HOME ?? dirname(fileURLToPath(import.meta.url));'), loader: 'ts' };
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
    b.onResolve({ filter: /^node:/ }, (args) => (args.kind === 'import-statement' || args.kind === 'dynamic-import' ? { path: args.path, namespace: 'wf-builtin' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'wf-builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

export async function bundleAgent(): Promise<{ bundle: string; bytes: number; objects: string[] }> {
  for (const endian of ['bpfel', 'bpfeb']) {
    if (!existsSync(join(BPF, endian, 'set_ip_ttl.o'))) throw new Error(`missing ${join(BPF, endian)}: run npm run bpf:build first`);
  }
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const bundle = join(OUT, 'agent.mjs');
  await build({
    entryPoints: [join(ROOT, 'agent/main.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    legalComments: 'none',
    external: ['*.node', 'cpu-features'],
    // CommonJS dependencies (grpc-js, ssh2) use require, __dirname and __filename: give the ESM bundle them.
    banner: {
      js: [
        '#!/usr/bin/env node',
        "import { createRequire as __wfRequire } from 'node:module'; import { fileURLToPath as __wfPath } from 'node:url'; import { dirname as __wfDir } from 'node:path';",
        'const require = __wfRequire(import.meta.url); const __filename = __wfPath(import.meta.url); const __dirname = __wfDir(__filename);',
      ].join('\n'),
    },
    plugins: [relocateBpf, builtinsByRequire],
    logLevel: 'warning',
  });
  chmodSync(bundle, 0o755);
  const objects: string[] = [];
  for (const endian of ['bpfel', 'bpfeb']) {
    mkdirSync(join(OUT, 'bpf/build', endian), { recursive: true });
    for (const f of readdirSync(join(BPF, endian)).filter((n) => n.endsWith('.o'))) {
      copyFileSync(join(BPF, endian, f), join(OUT, 'bpf/build', endian, f));
      objects.push(`${endian}/${f}`);
    }
  }
  if (existsSync(join(BPF, 'wf-tcx'))) {
    copyFileSync(join(BPF, 'wf-tcx'), join(OUT, 'bpf/build/wf-tcx'));
    chmodSync(join(OUT, 'bpf/build/wf-tcx'), 0o755);
  }
  const here = dirname(fileURLToPath(import.meta.url));
  for (const [dir, files] of [
    ['openwrt', ['wrtfleet-agent.init', 'wrtfleet.config']],
    ['systemd', ['wrtfleet-proxy.service']],
  ] as const) {
    mkdirSync(join(OUT, dir), { recursive: true });
    for (const f of files) copyFileSync(join(here, dir, f), join(OUT, dir, f));
  }
  return { bundle, bytes: statSync(bundle).size, objects };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await bundleAgent();
  console.log(`agent bundle: ${r.bundle} (${(r.bytes / 1024).toFixed(0)} KiB), ${r.objects.length} BPF objects`);
}
