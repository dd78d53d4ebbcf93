/**
 * The lab's image cache: one directory per guest image, named by a hash of what the image is
 * built from, so an image is built once and rebuilt only when one of its inputs changes.
 *
 * The key covers the arch's build script and its sibling files (`lab/images/<arch>.sh`,
 * `<arch>-*`, `<arch>/`), the shared `/init` and packer, and what `<arch>.sh --inputs` prints
 * (the package or source versions it pins). A build writes into a temporary directory that is
 * renamed into place only when complete, so a killed build never leaves a half image behind.
 * The cache also holds the lab's SSH key pair (root's authorized key in every guest).
 */
import { spawn, execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ssh2 from 'ssh2';

export type LabArch = 'mipsel' | 'mips';
export const LAB_ARCHES: readonly LabArch[] = ['mipsel', 'mips'];

export const IMAGES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), 'images');

export interface ImageManifest {
  arch: LabArch;
  key: string;
  kernelVersion?: string;
  buildSeconds: number;
  sizes: { vmlinux: number; initrd: number };
  [field: string]: unknown;
}

export interface LabImage {
  arch: LabArch;
  key: string;
  dir: string;
  vmlinux: string;
  initrd: string;
  manifest: ImageManifest;
  /** True when this call built it (false: it came from the cache). */
  built: boolean;
}

export type ProgressLog = (line: string) => void;
const stderrLog: ProgressLog = (line) => process.stderr.write(`${line}\n`);

export function labCacheRoot(): string {
  const explicit = process.env.WRTFLEET_LAB_CACHE;
  if (explicit) return resolve(explicit);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'wrtfleet-lab');
}

export function isLabArch(value: string): value is LabArch {
  return (LAB_ARCHES as readonly string[]).includes(value);
}

/** The files of `lab/images/` an arch's image is built from, sorted. */
async function inputFiles(arch: LabArch): Promise<string[]> {
  const files: string[] = [join(IMAGES_DIR, 'guest-init.sh'), join(IMAGES_DIR, 'pack-initramfs.sh')];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else files.push(path);
    }
  };
  for (const entry of await readdir(IMAGES_DIR, { withFileTypes: true })) {
    const path = join(IMAGES_DIR, entry.name);
    if (entry.isDirectory() && entry.name === arch) await walk(path);
    else if (entry.isFile() && (entry.name === `${arch}.sh` || entry.name.startsWith(`${arch}-`))) files.push(path);
  }
  return files.sort();
}

/**
 * What `<arch>.sh --inputs` prints. It asks apt (a few seconds), so the answer is kept
 * until the script changes or apt's package lists do.
 */
async function pinnedInputs(arch: LabArch, scriptDigest: string): Promise<string> {
  const root = labCacheRoot();
  const listsStamp = await stat('/var/lib/apt/lists').then(
    (s) => String(s.mtimeMs),
    () => 'no-apt-lists',
  );
  const memo = join(root, 'inputs', `${arch}.json`);
  const stamp = `${scriptDigest} ${listsStamp}`;
  try {
    const saved = JSON.parse(await readFile(memo, 'utf8')) as { stamp: string; text: string };
    if (saved.stamp === stamp) return saved.text;
  } catch {
    /* no memo yet */
  }
  const script = join(IMAGES_DIR, `${arch}.sh`);
  const { stdout } = await promisify(execFile)('bash', [script, '--inputs'], {
    env: { ...process.env, WRTFLEET_LAB_CACHE: root },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: Error & { stderr?: string }) => {
    throw new Error(
      `${script} --inputs failed: ${(err.stderr || err.message).trim().split('\n').slice(-5).join(' | ')}`,
    );
  });
  await mkdir(dirname(memo), { recursive: true });
  await writeFile(memo, JSON.stringify({ stamp, text: stdout }));
  return stdout;
}

/** sha256 (first 16 hex) of the image's build inputs. */
export async function imageKey(arch: LabArch): Promise<string> {
  const files = await inputFiles(arch);
  if (!files.includes(join(IMAGES_DIR, `${arch}.sh`))) throw new Error(`no build script lab/images/${arch}.sh`);
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file.slice(IMAGES_DIR.length + 1)}\0`);
    hash.update(await readFile(file));
    hash.update('\0');
  }
  const scriptDigest = hash.copy().digest('hex');
  hash.update(await pinnedInputs(arch, scriptDigest));
  return hash.digest('hex').slice(0, 16);
}

function runBuild(script: string, outDir: string, log: ProgressLog): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [script, outDir], {
      env: { ...process.env, WRTFLEET_LAB_CACHE: labCacheRoot() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        log(line);
        tail.push(line);
        if (tail.length > 20) tail.shift();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`${script} failed (${signal ?? `exit ${code}`}):\n${tail.join('\n')}`));
    });
  });
}

async function readManifest(dir: string): Promise<ImageManifest> {
  return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ImageManifest;
}

function imageOf(arch: LabArch, key: string, dir: string, manifest: ImageManifest, built: boolean): LabImage {
  return { arch, key, dir, vmlinux: join(dir, 'vmlinux'), initrd: join(dir, 'initrd.cpio.gz'), manifest, built };
}

/** Whether a process lives (EPERM: it does, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One build per image key at a time, across processes (two test files, or a check beside a
 * bench): the lock file holds the builder's pid, so a killed builder's lock is taken over.
 * A few lines of our own: the lock only guards a directory that appears atomically anyway.
 */
async function withBuildLock<T>(lockPath: string, log: ProgressLog, body: () => Promise<T>): Promise<T> {
  let announced = false;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (holder && !processAlive(holder)) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (!announced) log(`lab: waiting for process ${holder || '?'}, which is building this image`);
      announced = true;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  try {
    return await body();
  } finally {
    await rm(lockPath, { force: true });
  }
}

/** The image for `arch`, built first when the cache has none for the current inputs. */
export async function ensureImage(arch: LabArch, options: { log?: ProgressLog } = {}): Promise<LabImage> {
  const log = options.log ?? stderrLog;
  const root = labCacheRoot();
  const key = await imageKey(arch);
  const dir = join(root, `${arch}-${key}`);
  if (existsSync(join(dir, 'manifest.json'))) return imageOf(arch, key, dir, await readManifest(dir), false);
  await mkdir(root, { recursive: true });
  return withBuildLock(join(root, `.${arch}-${key}.lock`), log, async () => {
    // The process that held the lock may have built it.
    if (existsSync(join(dir, 'manifest.json'))) return imageOf(arch, key, dir, await readManifest(dir), false);
    return buildImage(arch, key, dir, log);
  });
}

async function buildImage(arch: LabArch, key: string, dir: string, log: ProgressLog): Promise<LabImage> {
  const root = labCacheRoot();
  // What a killed build left (its pid is in the name): nothing will finish it.
  for (const name of await readdir(root)) {
    const pid = Number(/^\.[a-z]+-[0-9a-f]{16}\.tmp-(\d+)$/.exec(name)?.[1]);
    if (pid && !processAlive(pid)) await rm(join(root, name), { recursive: true, force: true });
  }
  const tmp = join(root, `.${arch}-${key}.tmp-${process.pid}`);
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  log(`lab: building the ${arch} image (key ${key}) into ${dir}`);
  const started = Date.now();
  try {
    await runBuild(join(IMAGES_DIR, `${arch}.sh`), tmp, log);
    // A script may leave the root tree and let the common packer make the initramfs.
    if (!existsSync(join(tmp, 'initrd.cpio.gz')) && existsSync(join(tmp, 'rootfs'))) {
      await promisify(execFile)('bash', [
        join(IMAGES_DIR, 'pack-initramfs.sh'),
        join(tmp, 'rootfs'),
        join(tmp, 'initrd.cpio.gz'),
        arch,
      ]);
    }
    await rm(join(tmp, 'rootfs'), { recursive: true, force: true });
    for (const file of ['vmlinux', 'initrd.cpio.gz', 'manifest.json'])
      if (!existsSync(join(tmp, file))) throw new Error(`lab/images/${arch}.sh produced no ${file}`);
    const manifest = await readManifest(tmp);
    const sizes = {
      vmlinux: (await stat(join(tmp, 'vmlinux'))).size,
      initrd: (await stat(join(tmp, 'initrd.cpio.gz'))).size,
    };
    const full: ImageManifest = {
      ...manifest,
      arch,
      key,
      buildSeconds: Math.round((Date.now() - started) / 100) / 10,
      sizes,
    };
    await writeFile(join(tmp, 'manifest.json'), `${JSON.stringify(full, null, 2)}\n`);
    try {
      await rename(tmp, dir);
    } catch (err) {
      // Another process finished the same image first: use theirs.
      if (!existsSync(join(dir, 'manifest.json'))) throw err;
      await rm(tmp, { recursive: true, force: true });
    }
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  await pruneOldImages(arch, key);
  const manifest = await readManifest(dir);
  log(
    `lab: ${arch} image built in ${manifest.buildSeconds} s (initrd ${mib(manifest.sizes.initrd)}, kernel ${mib(manifest.sizes.vmlinux)})`,
  );
  return imageOf(arch, key, dir, manifest, true);
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Images of `arch` built from older inputs: nothing boots them any more. */
async function pruneOldImages(arch: LabArch, key: string): Promise<void> {
  const root = labCacheRoot();
  for (const name of await readdir(root)) {
    if (name.startsWith(`${arch}-`) && name !== `${arch}-${key}` && /^[a-z]+-[0-9a-f]{16}$/.test(name))
      await rm(join(root, name), { recursive: true, force: true });
  }
}

export interface LabKeyPair {
  privateKeyPath: string;
  privateKey: string;
  /** The base64 ed25519 public key blob (the second field of an authorized_keys line). */
  publicKeyBlob: string;
}

/**
 * The lab's ed25519 key pair, made once per cache. The two lab files boot their guests at the
 * same moment: on a cold cache both make a key, and the first to link its file wins; the other
 * uses the winner's. The public half is derived from the private file, so a guest's command line
 * and every later reader of the file (the proxy agent's SshHost) hold the same key.
 */
export async function labKeyPair(): Promise<LabKeyPair> {
  const dir = join(labCacheRoot(), 'ssh');
  const privateKeyPath = join(dir, 'id_ed25519');
  if (!existsSync(privateKeyPath)) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const pair = ssh2.utils.generateKeyPairSync('ed25519', { comment: 'wrtfleet-lab' });
    const mine = `${privateKeyPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(mine, pair.private, { mode: 0o600 });
    try {
      await link(mine, privateKeyPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      await rm(mine, { force: true });
    }
  }
  const privateKey = await readFile(privateKeyPath, 'utf8');
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error) throw new Error(`malformed lab key ${privateKeyPath}: ${parsed.message}`);
  const publicKeyBlob = (Array.isArray(parsed) ? parsed[0]! : parsed).getPublicSSH().toString('base64');
  // For a person's `ssh -i`: written from the private key, so it always matches it.
  await writeFile(`${privateKeyPath}.pub`, `ssh-ed25519 ${publicKeyBlob} wrtfleet-lab\n`, { mode: 0o644 });
  return { privateKeyPath, privateKey, publicKeyBlob };
}
