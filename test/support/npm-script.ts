import { spawn } from 'node:child_process';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '../..');

/**
 * `npm run -s <script>` as a user starts it, in a process group of its own so that a signal
 * reaches npm and node alike, as Ctrl-C in a terminal does. `env` is the whole environment
 * when `replaceEnv` is set, else it is added to this process's.
 */
export function runNpmScript(
  script: string,
  env: NodeJS.ProcessEnv,
  options: { cwd?: string; replaceEnv?: boolean } = {},
) {
  const child = spawn('npm', ['run', '-s', script], {
    cwd: options.cwd ?? REPO,
    env: options.replaceEnv ? env : { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // 'close' waits for every holder of the pipes, i.e. node behind npm too.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  return { child, exited, signal, out: () => stdout, err: () => stderr };
}
