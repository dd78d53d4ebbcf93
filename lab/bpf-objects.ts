/**
 * The BPF objects and the cross-built wf-tcx helpers every check ships to a guest. bpf/build.sh
 * is idempotent and takes seconds, so the lab runs it before a guest needs them rather than
 * failing a clean clone's first `lab check` with "run bpf:build first".
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../agent/packaging/esbuild-plugins.js';

const BUILD_SCRIPT = join(REPO_ROOT, 'bpf', 'build.sh');

export function buildBpfObjects(): void {
  try {
    execFileSync('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as Error & { stderr?: Buffer };
    throw new Error(`bpf/build.sh failed: ${e.stderr?.toString().trim() || e.message}`, { cause: err });
  }
}
