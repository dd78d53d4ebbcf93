/**
 * Runs a TypeScript entry point of this repo (`node server/launch.mjs server/main.ts`) as one
 * esbuild bundle of the repo's own modules, with every npm package left external and loaded by
 * Node itself.
 *
 * Why not `node --import tsx`: on Node 20 tsx's loader hooks run on a separate thread and every
 * resolve and load of every module, npm packages included, crosses to it and back; building the
 * bundle costs less than that crossing; measured in docs/BENCHMARKS.md#start-up. Tests and tools
 * still use tsx.
 *
 * Each module keeps its own location: `import.meta.url`, `.dirname` and `.filename` are
 * replaced by the original file's values, so paths computed from them (fixtures, migrations,
 * the Prisma client's engine, BPF objects) and "am I the main module" checks mean what they
 * mean under tsx. The bundle is written under node_modules/.cache in a directory named by its
 * content hash, so concurrent starts never read a half-written file, and rebuilt at every start: it can
 * never be stale.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(repoRoot, 'node_modules', '.cache', 'wrtfleet', 'launch');
/** Bundles of earlier starts older than this, and run by no live process, are removed. */
const STALE_BUNDLE_MS = 60 * 60 * 1000;

const entry = process.argv[2];
if (!entry) {
  console.error('usage: node server/launch.mjs <entry.ts> [args...]');
  process.exit(2);
}
const entryPath = path.resolve(repoRoot, entry);
// The entry sees the argv it would see under tsx: [node, entry, ...args].
process.argv.splice(1, 2, entryPath);

/** @type {import('esbuild').Plugin} */
const keepModuleLocation = {
  name: 'keep-module-location',
  setup(builder) {
    builder.onLoad({ filter: /\.[cm]?ts$/ }, async ({ path: file }) => {
      const source = await readFile(file, 'utf8');
      return {
        loader: 'ts',
        contents: source
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)))
          .replaceAll('import.meta.filename', JSON.stringify(file)),
      };
    });
  },
};

const result = await build({
  entryPoints: { entry: entryPath },
  bundle: true,
  // Split so that a dynamic import() stays lazy: without it esbuild hoists the npm packages of
  // lazily imported modules (BullMQ, Bull Board, ioredis) into eager top-level imports.
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  write: false,
  outdir: '/',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunk-[hash]',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'error',
  plugins: [keepModuleLocation],
});
const hash = createHash('sha256');
for (const file of result.outputFiles) hash.update(file.path).update(file.contents);
const bundleDir = path.join(
  outDir,
  `${path.basename(entryPath).replace(/\.[cm]?ts$/, '')}-${hash.digest('hex').slice(0, 16)}`,
);
if (!(await stat(bundleDir).catch(() => null))) {
  // Written whole into a private directory, then renamed into place: a concurrent start sees
  // either no bundle or a complete one.
  const tmp = `${bundleDir}.${process.pid}.tmp`;
  await mkdir(tmp, { recursive: true });
  for (const file of result.outputFiles) await writeFile(path.join(tmp, file.path), file.contents);
  await rename(tmp, bundleDir).catch(async (error) => {
    await rm(tmp, { recursive: true, force: true });
    if (!(await stat(bundleDir).catch(() => null))) throw error;
  });
}
// A running process may still import a lazy chunk of its bundle hours after it started, so each
// process marks the bundle it runs from, and only bundles no live process marked are removed.
await mkdir(path.join(bundleDir, 'users'), { recursive: true });
await writeFile(path.join(bundleDir, 'users', String(process.pid)), '');
void pruneOldBundles(bundleDir);
await import(pathToFileURL(path.join(bundleDir, 'entry.mjs')).href);

async function pruneOldBundles(keep) {
  const now = Date.now();
  for (const name of await readdir(outDir).catch(() => [])) {
    const dir = path.join(outDir, name);
    if (dir === keep) continue;
    const info = await stat(dir).catch(() => null);
    if (!info || now - info.mtimeMs <= STALE_BUNDLE_MS) continue;
    const users = await readdir(path.join(dir, 'users')).catch(() => []);
    if (users.some((pid) => isAlive(Number(pid)))) continue;
    await rm(dir, { recursive: true, force: true });
  }
}

function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
