/** The agent bench's settings (WF_BENCH_*), its scratch directory and the results it collects. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROUTERS = Number(process.env.WF_BENCH_ROUTERS ?? 200);
export const AGENTS = Number(process.env.WF_BENCH_AGENTS ?? 1000);
export const JITTER_MS = Number(process.env.WF_BENCH_JITTER_MS ?? 5000);
export const APPLIES = Number(process.env.WF_BENCH_APPLIES ?? 10);
export const IDLE_S = Number(process.env.WF_BENCH_IDLE_S ?? 10);
export const AFTER_APPLY_S = Number(process.env.WF_BENCH_AFTER_APPLY_S ?? 30);
export const MB = 1024 * 1024;
export const INIT_SCRIPT = join(process.cwd(), 'agent/packaging/openwrt/wrtfleet-agent.init');
export const PROXY_UNIT = join(process.cwd(), 'agent/packaging/systemd/wrtfleet-proxy.service');
export const FLAGS_OVERRIDE = process.env.WF_BENCH_NODE_FLAGS?.split(' ').filter(Boolean);
/** The node flags of the proxy's systemd unit (its ExecStart, between node and agent.cjs). */
export const NODE_FLAGS =
  FLAGS_OVERRIDE ??
  readFileSync(PROXY_UNIT, 'utf8')
    .match(/^ExecStart=\S+ (.*?)\s*\S+agent\.cjs proxy /m)![1]!
    .split(' ')
    .filter(Boolean);
export const work = mkdtempSync(join(tmpdir(), 'wf-bench-agent-'));
export const results: Record<string, unknown> = {};
