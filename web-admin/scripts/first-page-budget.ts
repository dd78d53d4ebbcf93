/**
 * The budget of the console's first page: the JavaScript a browser must fetch before the
 * fleet table can show, read from Vite's build manifest (the entry chunk, the fleet page's
 * chunk, and every chunk they import statically), gzip-compressed as the controller serves it.
 */
import { gzipSync } from 'node:zlib';

/** A chunk of Vite's .vite/manifest.json. */
export interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export type Manifest = Record<string, ManifestChunk>;

/** 200 KB of gzip-compressed JavaScript for the first page (1 KB = 1,000 bytes). */
export const FIRST_PAGE_BUDGET_BYTES = 200_000;

/** The page the console opens on ("/" redirects to /fleet). */
export const FIRST_PAGE_SOURCE = 'src/pages/fleet/FleetPage.tsx';

/** The JavaScript files (under the build's root) that the entry plus `page` load, each once. */
export function firstPageFiles(manifest: Manifest, page = FIRST_PAGE_SOURCE): string[] {
  const entries = Object.entries(manifest).filter(([, chunk]) => chunk.isEntry);
  if (entries.length !== 1) throw new Error(`the manifest has ${entries.length} entry chunks, expected 1`);
  if (!manifest[page]) throw new Error(`the manifest has no chunk for ${page}`);
  const seen = new Set<string>();
  const files: string[] = [];
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) throw new Error(`the manifest names a chunk it does not have: ${key}`);
    if (chunk.file.endsWith('.js')) files.push(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entries[0]![0]);
  visit(page);
  return files;
}

export function gzipSize(content: Buffer | string): number {
  return gzipSync(content, { level: 9 }).length;
}
