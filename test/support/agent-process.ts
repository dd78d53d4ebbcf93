import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '../..');

export interface AgentProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

/** `agent/main.ts <args>` as its own process (tsx), its stderr kept; `children` collects it for cleanup. */
export function spawnAgent(args: string[], children: ChildProcess[]): AgentProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'agent/main.ts', ...args], {
    cwd: repo,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  children.push(child);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, stderr: () => stderr, exited };
}
