import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  forgetOverSysupgradeScript,
  keepOverSysupgradeScript,
  sysupgradeKeepPaths,
} from '../../../agent/packaging/sysupgrade-keep.js';

describe("the agent's files in /etc/sysupgrade.conf", () => {
  const prefix = mkdtempSync(join(tmpdir(), 'wf-keep-'));
  const conf = join(prefix, 'etc/sysupgrade.conf');
  afterEach(() => rmSync(join(prefix, 'etc'), { recursive: true, force: true }));

  it("adds each path once, keeps the operator's lines, and takes only its own out again", () => {
    mkdirSync(join(prefix, 'etc'), { recursive: true });
    writeFileSync(conf, '## This file contains files and directories that should\n/etc/dropbear\n');
    execFileSync('sh', ['-c', keepOverSysupgradeScript(prefix)]);
    execFileSync('sh', ['-c', keepOverSysupgradeScript(prefix)]);
    const lines = readFileSync(conf, 'utf8').trim().split('\n');
    expect(lines).toEqual([
      '## This file contains files and directories that should',
      '/etc/dropbear',
      ...sysupgradeKeepPaths(prefix),
    ]);
    expect(sysupgradeKeepPaths()).toContain('/etc/wrtfleet');
    expect(sysupgradeKeepPaths()).toContain('/usr/lib/wrtfleet');
    execFileSync('sh', ['-c', forgetOverSysupgradeScript(prefix)]);
    expect(readFileSync(conf, 'utf8')).toBe('## This file contains files and directories that should\n/etc/dropbear\n');
  });

  it('creates the file when the router has none, and removes it again', () => {
    mkdirSync(join(prefix, 'etc'), { recursive: true });
    execFileSync('sh', ['-c', keepOverSysupgradeScript(prefix)]);
    expect(readFileSync(conf, 'utf8').trim().split('\n')).toEqual(sysupgradeKeepPaths(prefix));
    execFileSync('sh', ['-c', forgetOverSysupgradeScript(prefix)]);
    expect(existsSync(conf)).toBe(false);
  });
});
