/**
 * `npm run web:build` (also run by `npm install` and by a controller that finds no build):
 * builds the console into web-admin/dist, fails when the first page's JavaScript is over its
 * gzip budget, and writes .gz and .br beside each text asset for the controller to serve.
 * The build goes to a private directory first and is renamed into place, so a controller (or
 * a concurrent build) never sees half of one.
 */
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { consoleSourceHash, SOURCE_STAMP } from '../../server/console/console-source.js';
import { FIRST_PAGE_BUDGET_BYTES, firstPageFiles, gzipSize, type Manifest } from './first-page-budget.js';

const webAdmin = path.resolve(import.meta.dirname, '..');
const dist = path.join(webAdmin, 'dist');
const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

async function checkBudget(outDir: string): Promise<void> {
  const manifest = JSON.parse(await readFile(path.join(outDir, '.vite/manifest.json'), 'utf8')) as Manifest;
  let total = 0;
  const lines: string[] = [];
  for (const file of firstPageFiles(manifest)) {
    const size = gzipSize(await readFile(path.join(outDir, file)));
    total += size;
    lines.push(`  ${file}  ${(size / 1000).toFixed(1)} KB gzip`);
  }
  const verdict = `${(total / 1000).toFixed(1)} KB gzip of JavaScript for the first page (budget ${FIRST_PAGE_BUDGET_BYTES / 1000} KB)`;
  if (total > FIRST_PAGE_BUDGET_BYTES) {
    throw new Error(`the console is over its budget: ${verdict}\n${lines.join('\n')}`);
  }
  console.log(`console: ${verdict}`);
}

async function precompress(outDir: string): Promise<void> {
  for (const file of await filesUnder(outDir)) {
    if (!COMPRESSIBLE.test(file) || file.includes(`${path.sep}.vite${path.sep}`)) continue;
    const content = await readFile(file);
    if (content.length < 1024) continue;
    await writeFile(`${file}.gz`, gzipSync(content, { level: 9 }));
    await writeFile(
      `${file}.br`,
      brotliCompressSync(content, {
        params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: content.length },
      }),
    );
  }
}

export async function buildConsole(): Promise<void> {
  // Vite builds React's development code when NODE_ENV says so (a test runner sets "test").
  process.env.NODE_ENV = 'production';
  const outDir = path.join(webAdmin, `.dist-${process.pid}-${Date.now()}`);
  try {
    const sources = consoleSourceHash();
    await build({ configFile: path.join(webAdmin, 'vite.config.ts'), build: { outDir }, logLevel: 'warn' });
    await checkBudget(outDir);
    await precompress(outDir);
    await writeFile(path.join(outDir, SOURCE_STAMP), `${sources}\n`);
    // Swap: the old build moves aside first, so dist is missing for an instant at most, never half-written.
    const old = `${dist}.old-${process.pid}`;
    if (await stat(dist).catch(() => null)) await rename(dist, old);
    await rename(outDir, dist);
    await rm(old, { recursive: true, force: true });
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  buildConsole().then(
    () => console.log(`console: built into ${path.relative(process.cwd(), dist) || dist}`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
