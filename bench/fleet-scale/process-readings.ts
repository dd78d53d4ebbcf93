/** What bench/fleet-scale reads of the processes it runs and of the machine: CPU, RSS, TCP counters, transactions. */
import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';

/** TcpExt counters of this network namespace (loopback: the controller's and the agents'). */
export async function tcpExt(): Promise<Record<string, number>> {
  const lines = (await readFile('/proc/net/netstat', 'utf8')).split('\n');
  const i = lines.findIndex((l) => l.startsWith('TcpExt:'));
  const names = lines[i]!.split(/\s+/).slice(1);
  const values = lines[i + 1]!.split(/\s+/).slice(1).map(Number);
  return Object.fromEntries(names.map((n, j) => [n, values[j]!]));
}

/** Committed transactions of the bench's database so far (each autocommit statement is one). */
export async function transactions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** CPU seconds (user + system) a process has used. */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = await statFields(pid);
  // utime and stime, in clock ticks of 1/100 s (USER_HZ on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds used so far by the PostgreSQL server's processes on this machine (all backends:
 * the controller's pool and the bench's own probes), those that exited included: the
 * postmaster reaps its backends, and the kernel adds their CPU to its children's time.
 */
export async function postgresCpuSeconds(): Promise<number> {
  let total = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() !== 'postgres') continue;
    total += await cpuSeconds(Number(entry)).catch(() => 0);
    // The postmaster is the one whose parent is not a postgres process.
    const parent = await statFields(Number(entry))
      .then((f) => readFile(`/proc/${f[1]}/comm`, 'utf8'))
      .catch(() => '');
    if (parent.trim() !== 'postgres') total += await reapedChildrenCpuSeconds(Number(entry)).catch(() => 0);
  }
  return total;
}

/** The fields of /proc/<pid>/stat after the command name (state first). */
async function statFields(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
}

/** CPU seconds of a process's children that exited and were waited for (cutime + cstime). */
async function reapedChildrenCpuSeconds(pid: number): Promise<number> {
  const fields = await statFields(pid);
  return (Number(fields[13]) + Number(fields[14])) / 100;
}
