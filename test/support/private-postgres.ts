import { execFile, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { TestDatabase } from './databases.js';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** Where Debian installs the server binaries, one directory per major version. */
const POSTGRES_LIB = process.env.WRTFLEET_TEST_POSTGRES_LIB ?? '/usr/lib/postgresql';

/** The superuser initdb creates; trust authentication, loopback only. */
const SUPERUSER = 'wrtfleet';

/** The newest installed server's bin directory; missing binaries fail the test rather than skip it. */
async function serverBinDir(): Promise<string> {
  const versions = await readdir(POSTGRES_LIB).catch(() => [] as string[]);
  const newest = versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .at(0);
  if (!newest)
    throw new Error(`no PostgreSQL server under ${POSTGRES_LIB}: install the postgresql package (initdb, pg_ctl)`);
  return path.join(POSTGRES_LIB, newest, 'bin');
}

/**
 * A PostgreSQL cluster of one test's own (initdb into a temp dir, its own port and socket
 * directory), so the test can really stop and start the server mid-run without touching the
 * machine's shared cluster on 5432. PostgreSQL refuses to run as root: as root, every server
 * command runs as the `postgres` OS user, and the directory belongs to it.
 */
export class PrivatePostgres {
  private dir = '';
  private bin = '';
  port = 0;

  private get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /** The cluster's maintenance database, as its superuser. */
  get adminUrl(): string {
    return `postgresql://${SUPERUSER}@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<this> {
    this.bin = await serverBinDir();
    this.dir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-pgcluster-'));
    await mkdir(path.join(this.dir, 'socket'));
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      for (const d of [this.dir, path.join(this.dir, 'socket')]) await chown(d, Number(stdout), Number(gid));
    }
    this.port = await freePort();
    process.once('exit', this.removeOnExit);
    // No fsync anywhere: the cluster lives for one test, and initdb's syncs cost seconds.
    await this.server('initdb', ['-D', this.dataDir, '-U', SUPERUSER, '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    await this.launch();
    return this;
  }

  /** A fresh database in the cluster, in the shape the controller helpers take. */
  async createDatabase(name = 'wrtfleet'): Promise<TestDatabase> {
    const admin = new pg.Client({ connectionString: this.adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wrtfleet-pg-'));
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    // The cluster goes with `stop`; only the controller's data directory is this one's to remove.
    return { databaseUrl: url.toString(), dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }

  /** Stops the server (`fast`: open sessions are ended, as a restart by an administrator does). */
  async stopServer(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.server('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  /** Starts the stopped server again on the same port. */
  async startServer(): Promise<void> {
    await this.launch();
  }

  /** Stops the server if it runs and removes the cluster; safe after a failed start and twice. */
  async stop(): Promise<void> {
    if (!this.dir) return;
    process.off('exit', this.removeOnExit);
    await this.server('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
    this.dir = '';
  }

  /** A test process that ends without its afterAll (a crash, process.exit) still stops the server. */
  private readonly removeOnExit = () => {
    const [file, argv] = this.command('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']);
    try {
      execFileSync(file, argv, { cwd: this.dir, stdio: 'ignore', timeout: 30_000 });
    } catch {
      /* not running */
    }
    rmSync(this.dir, { recursive: true, force: true });
  };

  private async launch(): Promise<void> {
    const options = `-p ${this.port} -k ${path.join(this.dir, 'socket')} -c listen_addresses=127.0.0.1 -c fsync=off`;
    const log = path.join(this.dir, 'server.log');
    try {
      await this.server('pg_ctl', ['-D', this.dataDir, '-o', options, '-l', log, '-w', '-t', '30', 'start']);
    } catch (err) {
      const tail = await readFile(log, 'utf8').catch(() => '');
      throw new Error(`${(err as Error).message}\n${tail.slice(-2_000)}`, { cause: err });
    }
  }

  /** Runs a server binary. */
  private async server(program: string, args: string[]): Promise<void> {
    const [file, argv] = this.command(program, args);
    await run(file, argv, { cwd: this.dir, timeout: 60_000 });
  }

  /** The command line of a server binary: as `postgres` when we are root. */
  private command(program: string, args: string[]): [string, string[]] {
    const binary = path.join(this.bin, program);
    return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  }
}
