/**
 * `npm run agent:bundle`: the agent as ONE file for routers and proxy hosts.
 *
 *   dist/agent/agent.cjs               esbuild bundle of agent/main.ts (node18, minified; see ENTRY_STUB)
 *   dist/agent/bpf/build/bpfel/*.o     the four programs and wf_chain, little-endian (x86_64, aarch64, mipsel)
 *   dist/agent/bpf/build/bpfeb/*.o     big-endian (ath79 mips)
 *   dist/agent/bpf/build/wf-tcx        TCX helper built for THIS machine
 *   dist/agent/bpf/build/<cpu>/wf-tcx.gz  the same, static and gzipped, for mipsel, mips and aarch64 routers
 *                                      (onboarding uploads the fitting one, unpacked)
 *   dist/agent/openwrt/, systemd/      init script, UCI config, proxy unit
 *
 * How the build adapts modules to one file: agent/packaging/esbuild-plugins.ts. The file's two
 * layers (the always-loaded code, and lazy sections evaluated on use): agent/packaging/sections.ts.
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
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
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import type { TcxHelperCpu } from '../datapath/programs.js';
import { AGENT_ENTRY_FILE } from './layout.js';

import { builtinsByRequire, grpcClientOnly, grpcUtcTimers, relocateBpf, REPO_ROOT as ROOT } from './esbuild-plugins.js';
import {
  CORE_END,
  CORE_START,
  ENTRY_STUB,
  payloadTrailer,
  SECTIONS,
  sectionLoader,
  sectionRefs,
  storeInComment,
} from './sections.js';

const OUT = join(ROOT, 'dist/agent');
/**
 * The oldest Node.js the bundle runs on: 18. OpenWrt's packages feed builds node only for
 * targets with an FPU (x86_64, aarch64, some ARM): never for MT7621 or ath79, whose routers run
 * the proxy placement (docs/DOMAIN.md). Where the feed has node, its releases carried 14 (21.02),
 * 16 (22.03), 18 (23.05) and 20 (24.10); 25.12 has no target node package. 18 is the oldest of a
 * supported release, and what Debian 12 ships for generic Linux routers, mipsel included: the
 * router lab runs the bundle on that node 18.20.4 (lab/checks/agent-on-router.ts).
 */
const NODE_TARGET = 'node18';
const BPF = join(ROOT, 'bpf/build');

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
    target: NODE_TARGET,
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
        `lazy section "${name}" (${SECTIONS[name]}) is not imported anywhere any more: update SECTIONS in agent/packaging/sections.ts`,
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
