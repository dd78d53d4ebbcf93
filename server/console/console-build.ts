import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { consoleBuildIsCurrent } from './console-source.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Where `npm run web:build` puts the console, and where the controller serves it from by default. */
export const DEFAULT_CONSOLE_DIR = path.join(repoRoot, 'web-admin', 'dist');

export interface ConsoleBuildState {
  /** True while a build this process started is running. */
  building(): boolean;
}

/**
 * Starts `web-admin/scripts/build.ts` when the default build directory has no build of the
 * current sources (a checkout where `npm install` ran before the console existed or before a
 * pull changed it, or dist was removed). The controller does not wait for it: the API serves
 * at once, and the console serves the old build, or says "being built" when there is none.
 */
export function buildConsoleWhenMissing(distDir: string, log: Logger): ConsoleBuildState {
  if (distDir !== DEFAULT_CONSOLE_DIR) {
    if (!existsSync(path.join(distDir, 'index.html'))) log.warn({ distDir }, 'the console directory has no index.html');
    return { building: () => false };
  }
  if (consoleBuildIsCurrent(distDir)) return { building: () => false };
  let running = true;
  log.warn({ distDir }, 'the console build is missing or stale; building it now (npm run web:build)');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'web-admin/scripts/build.ts')], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('error', (err) => {
    running = false;
    log.error({ err }, 'could not start the console build');
  });
  child.on('exit', (code) => {
    running = false;
    if (code === 0) log.info({ distDir }, 'the console is built');
    else log.error({ code, output }, 'the console build failed; the API still serves, the console does not');
  });
  // A controller that stops before the build ends does not wait for it.
  child.unref();
  for (const pipe of [child.stdout, child.stderr]) (pipe as unknown as Socket).unref();
  return { building: () => running };
}
