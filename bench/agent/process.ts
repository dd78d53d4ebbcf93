/** Watching the processes under measurement: resident memory, waiting, stopping. */
import { type ChildProcess } from 'node:child_process';
import { MB } from './settings.js';
import { readFileSync } from 'node:fs';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function rssParts(pid: number): { anon: number; file: number } {
  const st = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(st.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') };
}

export function rssOf(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function stopProc(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  const done = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await Promise.race([done, sleep(5_000)]);
  if (p.exitCode === null) p.kill('SIGKILL');
}

/** Where a process's resident pages are (/proc/PID/smaps): the node binary, other files, malloc's heap, the rest of anonymous memory. */
export function rssBreakdown(pid: number): Record<string, number> {
  const parts = { nodeBinary: 0, otherFiles: 0, mallocHeap: 0, otherAnon: 0 };
  let key: keyof typeof parts = 'otherAnon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/);
    if (head) {
      const path = head[1]!;
      key =
        path === '[heap]'
          ? 'mallocHeap'
          : path.startsWith('/')
            ? path === process.execPath
              ? 'nodeBinary'
              : 'otherFiles'
            : 'otherAnon';
      continue;
    }
    const rss = line.match(/^Rss:\s+(\d+) kB/);
    if (rss) parts[key] += Number(rss[1]) * 1024;
  }
  return Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, +(v / MB).toFixed(1)]));
}

/** WF_BENCH_HEAPSNAP: the agent writes a heap snapshot (taken after the RSS was read: writing one grows it). */
export async function heapSnapshot(p: ChildProcess): Promise<void> {
  if (!process.env.WF_BENCH_HEAPSNAP) return;
  p.kill('SIGUSR2');
  await sleep(5000);
}
