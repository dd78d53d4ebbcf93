/**
 * A clean `npm install` is quiet and honest (CONTRIBUTING.md, Install), checked against what is
 * installed in node_modules:
 * - every installed package with an install script has an `allowScripts` entry for the version
 *   that was read, and every entry still names such a package. npm matches a denial by name
 *   alone when the lockfile has no `resolved` URLs (ours has none), so this test is what sends
 *   a new version of a package back to review;
 * - every Node.js version that our `engines` admits is admitted by every installed package,
 *   save the exceptions below, each with its reason; and the Node.js running this test is one
 *   that `engines` admits (the compatibility tier runs it on each line).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string): unknown => JSON.parse(readFileSync(path.join(repo, file), 'utf8'));

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: unknown };
  scripts?: Record<string, string>;
  gypfile?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}
interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  inBundle?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const root = readJson('package.json') as Manifest & { engines: { node: string } };
const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };

/** The installed packages: lockfile entries present on disk (optional ones of other platforms are not). */
const installed = Object.entries(lock.packages)
  .filter(([at, entry]) => at.startsWith('node_modules/') && !entry.link && !entry.inBundle)
  .filter(([at]) => existsSync(path.join(repo, at, 'package.json')))
  .map(([at, entry]) => ({
    at,
    name: entry.name ?? at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length),
    version: entry.version ?? '',
    entry,
    manifest: readJson(path.join(at, 'package.json')) as Manifest,
  }));

/** The scripts npm runs when it installs a package, as npm 11 counts them for `allowScripts`. */
function installScripts(at: string, manifest: Manifest): string[] {
  const scripts = manifest.scripts ?? {};
  const named = (['preinstall', 'install', 'postinstall'] as const).filter((s) => scripts[s]);
  const gyp = !scripts.preinstall && !scripts.install && manifest.gypfile !== false;
  if (gyp && existsSync(path.join(repo, at, 'binding.gyp'))) named.push('install');
  return named;
}

/** Packages whose `engines.node` may exclude a version we support, and why that is harmless. */
const ENGINE_EXCEPTIONS: Record<string, string> = {
  '@prisma/streams-local':
    'Node >= 22; the local stream server of `prisma dev` (through @prisma/dev, which the Prisma CLI ' +
    'imports only for that command). wrtfleet never runs `prisma dev`, so the code never loads.',
};

describe('the install policy', () => {
  it('names every installed install script in allowScripts, pinned to the version read', () => {
    const policy = root.allowScripts ?? {};
    const scripted = installed
      .filter(({ at, manifest }) => installScripts(at, manifest).length > 0)
      .map(({ name, version }) => `${name}@${version}`);
    expect(scripted.length).toBeGreaterThan(0);
    const unreviewed = scripted.filter((key) => !(key in policy));
    expect(unreviewed, 'read its install script and add it to allowScripts and CONTRIBUTING.md').toEqual([]);
    const stale = Object.keys(policy).filter((key) => !scripted.includes(key));
    expect(stale, 'allowScripts entries with no installed package of that version and an install script').toEqual([]);
  });

  it('has engines admitting the Node.js running this test and each supported line', () => {
    const engines = root.engines.node;
    expect(semver.validRange(engines)).not.toBeNull();
    expect(semver.satisfies(process.version, engines), `${process.version} against ${engines}`).toBe(true);
    for (const line of [20, 22, 24, 26]) {
      expect(semver.intersects(engines, `${line}.x`), `Node ${line} in ${engines}`).toBe(true);
    }
  });

  it("installs no package whose engines.node excludes a Node.js version that wrtfleet's engines admits", () => {
    const engines = root.engines.node;
    const excluding = installed
      .filter(({ manifest }) => manifest.engines?.node !== undefined)
      .filter(({ manifest }) => {
        const theirs = manifest.engines?.node;
        return typeof theirs !== 'string' || semver.validRange(theirs) === null || !semver.subset(engines, theirs);
      })
      .map(({ name, version, manifest }) => `${name}@${version} wants node ${JSON.stringify(manifest.engines?.node)}`);
    const unexplained = excluding.filter(
      (line) => !Object.keys(ENGINE_EXCEPTIONS).some((n) => line.startsWith(`${n}@`)),
    );
    expect(unexplained, `packages that do not run on every Node.js that ${engines} admits`).toEqual([]);
    // An exception that no longer excludes anything is dropped from the list (and from the README).
    const stale = Object.keys(ENGINE_EXCEPTIONS).filter((n) => !excluding.some((line) => line.startsWith(`${n}@`)));
    expect(stale).toEqual([]);
  });

  it('reaches @prisma/streams-local only through @prisma/dev, which only `prisma dev` loads', () => {
    const dependents = installed
      .filter(({ entry }) => '@prisma/streams-local' in { ...entry.dependencies, ...entry.optionalDependencies })
      .map(({ name }) => name);
    expect(dependents).toEqual(['@prisma/dev']);
    const users = installed
      .filter(({ entry }) => '@prisma/dev' in { ...entry.dependencies, ...entry.optionalDependencies })
      .map(({ name }) => name);
    expect(users).toEqual(['prisma']);
    // Nor does wrtfleet: no source file or npm script runs `prisma dev` or imports either package.
    const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      cwd: repo,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(ts|tsx|mts|mjs|cjs|js|sh)$/.test(f) && f !== 'test/repo/install-policy.unit.test.ts')
      .filter((f) => existsSync(path.join(repo, f)));
    const uses = /\bprisma(\/build\/index\.js)? dev\b|@prisma\/(dev|streams-local)\b/;
    const hits = [...sources, 'package.json'].filter((f) => uses.test(readFileSync(path.join(repo, f), 'utf8')));
    expect(hits).toEqual([]);
  });
});
