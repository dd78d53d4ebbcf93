/**
 * Packaging: the single-file bundle builds, stays under the size budget, carries the BPF
 * objects for both byte orders, and runs on its own (facts from a fixture tree; a real
 * probe inside a namespace, which proves it finds the objects and wf-tcx next to itself).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factsSummary } from '../../../core/capabilities.js';
import { collectFacts } from '../../../core/facts/index.js';
import { FixtureHost } from '../../../agent/sim/fixture-host.js';
import { LocalHost } from '../../../core/host/local-host.js';
import { bundleAgent } from '../../../agent/packaging/build.js';
import { AGENT_ENTRY_FILE } from '../../../agent/packaging/layout.js';
import { FLEET_FIXTURES } from '../../support/openwrt-transcripts.js';

const DIST = join(process.cwd(), 'dist/agent');
const ns = `wf-bundle-${randomBytes(3).toString('hex')}`;
const local = new LocalHost();

beforeAll(async () => {
  await bundleAgent();
  expect((await local.run(['ip', 'netns', 'add', ns])).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await local.run(['ip', 'netns', 'del', ns]);
  await local.run([join(process.cwd(), 'bpf/build/wf-tcx'), 'rm', `/sys/fs/bpf/wrtfleet/test-${ns}`]);
});

describe('agent bundle', () => {
  it('is one file under 3 MB with both BPF builds, wf-tcx and the service files', () => {
    const size = statSync(join(DIST, AGENT_ENTRY_FILE)).size;
    expect(size).toBeLessThan(3 * 1024 * 1024);
    for (const endian of ['bpfel', 'bpfeb'])
      for (const p of ['set_ip_id_zero', 'set_ip_ttl', 'set_tcp_syn_window', 'clear_tcp_syn_ts']) {
        const obj = readFileSync(join(DIST, 'bpf/build', endian, `${p}.o`));
        expect(obj[5], `${endian}/${p}.o EI_DATA`).toBe(endian === 'bpfel' ? 1 : 2);
      }
    expect(existsSync(join(DIST, 'bpf/build/wf-tcx'))).toBe(true);
    // The routers' static helpers, gzipped, unpack to exactly what bpf/build.sh built.
    for (const cpu of ['mipsel', 'mips', 'aarch64']) {
      expect(
        gunzipSync(readFileSync(join(DIST, 'bpf/build', cpu, 'wf-tcx.gz'))).equals(
          readFileSync(join('bpf/build', cpu, 'wf-tcx')),
        ),
        cpu,
      ).toBe(true);
    }
    // All of it, every router CPU's helper included, stays within the budget too.
    expect(Number(execFileSync('du', ['-sb', DIST], { encoding: 'utf8' }).split('\t')[0])).toBeLessThan(3e6);
    for (const f of ['openwrt/wrtfleet-agent.init', 'openwrt/wrtfleet.config', 'systemd/wrtfleet-proxy.service'])
      expect(existsSync(join(DIST, f)), f).toBe(true);
  });

  it.each(['tplink-archer-c7-v2', 'kt-km14-102h-mt7621', 'glinet-gl-mt6000-mt7986'])(
    '`node dist/agent/agent.cjs facts --root %s` prints the same JSON as the source tree',
    async (model) => {
      const root = join(FLEET_FIXTURES, model);
      const out = execFileSync('node', [join(DIST, AGENT_ENTRY_FILE), 'facts', '--root', root], {
        encoding: 'utf8',
        cwd: '/',
      });
      const facts = await collectFacts(new FixtureHost(root));
      expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(factsSummary(facts))));
    },
  );

  it('probes for real from its own directory (objects and wf-tcx found next to agent.cjs)', () => {
    const out = execFileSync(
      'nsenter',
      [
        `--net=/run/netns/${ns}`,
        'node',
        join(DIST, AGENT_ENTRY_FILE),
        'probe',
        '--pin-root',
        `/sys/fs/bpf/wrtfleet/test-${ns}`,
      ],
      { encoding: 'utf8', cwd: '/' },
    );
    const r = JSON.parse(out) as {
      probed: { flags: { ebpf: boolean; tcx: boolean }; details: { ebpf: { object: string } } };
    };
    expect(r.probed.flags).toMatchObject({ ebpf: true, tcx: true });
    expect(r.probed.details.ebpf.object).toBe('bpfel');
  });

  it('runs what it keeps as compressed lazy sections (agent/packaging/sections.ts): the proxy reads its config, fleet starts', () => {
    const proxy = spawnSync('node', [join(DIST, AGENT_ENTRY_FILE), 'proxy', '--config', '/nonexistent/proxy.yaml'], {
      encoding: 'utf8',
      cwd: '/',
    });
    expect(proxy.status).toBe(2);
    expect(proxy.stderr).toMatch(/^agent: config: cannot read \/nonexistent\/proxy\.yaml/);
    const fleet = spawnSync(
      'node',
      [
        join(DIST, AGENT_ENTRY_FILE),
        'fleet',
        '--controller',
        '127.0.0.1:9',
        '--fixtures',
        FLEET_FIXTURES,
        '--per-model',
        '1',
      ],
      { encoding: 'utf8', cwd: '/', timeout: 5_000, killSignal: 'SIGINT' },
    );
    expect(fleet.stderr).toMatch(/agent: started \d+ simulated routers against 127\.0\.0\.1:9/);
  });

  it('a running agent keeps only its always-loaded code on the heap, not the file it started from (the CommonJS entry stub)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wf-bundle-heap-'));
    const file = join(DIST, AGENT_ENTRY_FILE);
    const child = spawn(
      'node',
      [
        '--heapsnapshot-signal=SIGUSR2',
        file,
        'run',
        '--controller',
        '127.0.0.1:9',
        '--insecure',
        '--root',
        join(FLEET_FIXTURES, 'kt-km14-102h-mt7621'),
        '--state-file',
        join(dir, 'state.json'),
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    try {
      await new Promise((r) => setTimeout(r, 2_000));
      child.kill('SIGUSR2');
      let snapshot: string | undefined;
      for (let i = 0; i < 100 && !snapshot; i++) {
        await new Promise((r) => setTimeout(r, 200));
        const f = readdirSync(dir).find((n) => n.endsWith('.heapsnapshot'));
        if (f && statSync(join(dir, f)).size > 0) {
          try {
            snapshot = readFileSync(join(dir, f), 'utf8');
            JSON.parse(snapshot);
          } catch {
            snapshot = undefined;
          }
        }
      }
      expect(snapshot, 'heap snapshot written').toBeDefined();
      // String objects and their sizes (the snapshot keeps only their first 1024 characters).
      const heap = JSON.parse(snapshot!) as {
        snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
        nodes: number[];
        strings: string[];
      };
      const fields = heap.snapshot.meta.node_fields;
      const [type, name, selfSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
        number,
        number,
        number,
      ];
      const strings: { size: number; head: string }[] = [];
      for (let i = 0; i < heap.nodes.length; i += fields.length) {
        if (heap.snapshot.meta.node_types[0][heap.nodes[i + type]!] === 'string')
          strings.push({ size: heap.nodes[i + selfSize]!, head: heap.strings[heap.nodes[i + name]!]! });
      }
      const size = statSync(file).size;
      const largest = strings.reduce((a, b) => (b.size > a.size ? b : a));
      // The stub's script (the whole file: stub, code, the compressed sections) is gone...
      expect(strings.filter((t) => t.size >= size * 0.9).map((t) => t.head.slice(0, 40))).toEqual([]);
      // ...and what stays is the code the stub compiled, without the sections' payloads.
      expect(largest.head).toMatch(/^return \(async \(\) => \{'use strict';/);
      expect(largest.size).toBeGreaterThan(300_000);
      expect(largest.size).toBeLessThan(size * 0.7);
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);

  it('the procd init script and its UCI config parse', () => {
    expect(execFileSync('sh', ['-n', join(DIST, 'openwrt/wrtfleet-agent.init')], { encoding: 'utf8' })).toBe('');
    const uci = readFileSync(join(DIST, 'openwrt/wrtfleet.config'), 'utf8');
    expect(uci).toMatch(/^config agent 'main'$/m);
    expect(uci).toMatch(/option controller /);
    const unit = readFileSync(join(DIST, 'systemd/wrtfleet-proxy.service'), 'utf8');
    expect(unit).toMatch(
      /^ExecStart=\/usr\/bin\/node --max-semi-space-size=1 --single-threaded-gc \/opt\/wrtfleet\/agent\/agent\.cjs proxy --config \/etc\/wrtfleet\/proxy\.yaml$/m,
    );
  });
});
