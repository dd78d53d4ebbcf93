import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '../..');

export interface AgentProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

export interface AgentProcessOptions {
  /** Runs the agent inside this network namespace (`ip netns exec`, which execs node: same pid). */
  netns?: string;
}

/** `agent/main.ts <args>` as its own process (tsx), its stderr kept; `children` collects it for cleanup. */
export function spawnAgent(args: string[], children: ChildProcess[], options: AgentProcessOptions = {}): AgentProcess {
  const node = [process.execPath, '--import', 'tsx', 'agent/main.ts', ...args];
  const argv = options.netns ? ['ip', 'netns', 'exec', options.netns, ...node] : node;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: repo,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  children.push(child);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, stderr: () => stderr, exited };
}
