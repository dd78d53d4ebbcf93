import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../../server/controller.js';
import { createPgliteDatabase, type TestDatabase } from '../support/databases.js';
import { startTestController } from '../support/controller.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');

interface AlertJson {
  id: string;
  status: string;
  subject: { id: string; name: string };
  acknowledged: { by: string; note: string | null } | null;
}

/**
 * `wrtfleet alerts` against a live controller whose database holds three routers gone offline
 * (written as the registry writes them) and the router-offline rule tuned to fire at once, the
 * evaluation run by hand: list and filter, acknowledge, silence by router, by tags and rule,
 * list and end silences, the rules; and the mistakes a caller makes, refused with exit code 2
 * (usage) or 1 (the API said no).
 */
describe('wrtfleet alerts against a live controller', () => {
  let db: TestDatabase;
  let controller: Controller;
  let token: string;
  let env: NodeJS.ProcessEnv;
  const ids = new Map<string, string>();

  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, ['cli/bin.mjs', ...args], {
        cwd: repo,
        env,
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const json = async <T>(...args: string[]): Promise<T> => {
    const r = await cli('--json', ...args);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as T;
  };
  const api = async <T = Record<string, unknown>>(method: string, apiPath: string, body?: unknown) => {
    const res = await fetch(`${controller.httpUrl}${apiPath}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
  };
  const evaluate = () => controller.alerting.evaluator.evaluate({ force: true });

  beforeAll(async () => {
    db = await createPgliteDatabase();
    ({ controller, token } = await startTestController(db));
    env = { ...process.env, WRTFLEET_URL: controller.httpUrl, WRTFLEET_TOKEN: token };
  });

  afterAll(async () => {
    await controller?.close();
    await db?.drop();
  });

  it('says nothing is firing, and lists the rules', async () => {
    const none = await cli('alerts', 'ls');
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout.trim()).toBe('nothing is firing');
    const rules = await cli('alerts', 'rules');
    expect(rules.code, rules.stderr).toBe(0);
    const lines = rules.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+KIND\s+SEVERITY\s+FOR\s+GROUPBY\s+ENABLED\s+FIRING$/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^router-offline\s+router_offline\s+warning\s+5m\s+site\s+yes\s+0$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^dependency-unreachable\s+dependency_unreachable\s+critical\s+1m\s+-\s+yes\s+0$/),
    );
    expect((await json<{ items: unknown[] }>('alerts', 'rules')).items).toHaveLength(7);
  });

  it('lists the firing alerts, filtered by router name or id, severity, rule and status', async () => {
    const tuned = await api('PATCH', '/v1/alert-rules/router-offline', { forSeconds: 0, groupWaitSeconds: 0 });
    expect(tuned.status, JSON.stringify(tuned.body)).toBe(200);
    const routers = [
      { name: 'edge-ams-1', tags: ['site:ams'] },
      { name: 'edge-ams-2', tags: ['site:ams'] },
      { name: 'edge-fra-1', tags: ['site:fra'] },
    ];
    await controller.db.prisma.router.createMany({
      data: routers.map((r, i) => ({
        ...r,
        identity: `test:cli-alerts:${i}`,
        status: 'offline' as const,
        lastSeenAt: new Date(Date.now() - 600_000),
      })),
    });
    for (const r of await controller.db.prisma.router.findMany()) ids.set(r.name, r.id);
    expect(await evaluate()).toMatchObject({ fired: 3 });

    const ls = await cli('alerts', 'ls');
    expect(ls.code, ls.stderr).toBe(0);
    const [header, ...rows] = ls.stdout.trim().split('\n');
    expect(header).toMatch(
      /^ID\s+SEVERITY\s+STATUS\s+RULE\s+SUBJECT\s+GROUP\s+FIRED\s+RESOLVED\s+ACKNOWLEDGED\s+SILENCEDUNTIL\s+SUMMARY$/,
    );
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.includes('router edge-fra-1'))).toMatch(
      /^\S+\s+warning\s+firing\s+router-offline\s+router edge-fra-1\s+site:fra\s+\S+\s+-\s+-\s+-\s+edge-fra-1 offline/,
    );

    const byName = await json<{ items: AlertJson[] }>('alerts', 'ls', '--router', 'edge-ams-2');
    expect(byName.items.map((a) => a.subject.name)).toEqual(['edge-ams-2']);
    const byId = await json<{ items: AlertJson[] }>('alerts', 'ls', '--router', ids.get('edge-ams-1')!);
    expect(byId.items.map((a) => a.subject.name)).toEqual(['edge-ams-1']);
    expect((await json<{ items: unknown[] }>('alerts', 'ls', '--rule', 'router-offline')).items).toHaveLength(3);
    expect((await json<{ items: unknown[] }>('alerts', 'ls', '--rule', 'apply-failed')).items).toHaveLength(0);
    expect((await json<{ items: unknown[] }>('alerts', 'ls', '--severity', 'warning')).items).toHaveLength(3);
    const critical = await cli('alerts', 'ls', '--severity', 'critical');
    expect(critical.stdout.trim()).toBe('no alert matches');
    expect((await json<{ items: unknown[] }>('alerts', 'ls', '--status', 'resolved')).items).toHaveLength(0);
    expect((await json<{ items: unknown[] }>('alerts', 'ls', '--status', 'all')).items).toHaveLength(3);
  });

  it('acknowledges an alert with a note', async () => {
    const [alert] = (await json<{ items: AlertJson[] }>('alerts', 'ls', '--router', 'edge-ams-1')).items;
    const ack = await cli('alerts', 'ack', alert!.id, '--note', 'power cut, on it');
    expect(ack.code, ack.stderr).toBe(0);
    expect(ack.stdout.trim()).toBe(`acknowledged ${alert!.id}: router-offline on router edge-ams-1 (token:tester)`);
    const stored = await api<AlertJson>('GET', `/v1/alerts/${alert!.id}`);
    expect(stored.body).toMatchObject({
      status: 'acknowledged',
      acknowledged: { by: 'token:tester', note: 'power cut, on it' },
    });
    const acked = await json<{ items: AlertJson[] }>('alerts', 'ls', '--status', 'acknowledged');
    expect(acked.items.map((a) => a.id)).toEqual([alert!.id]);
    expect((await cli('alerts', 'ls', '--status', 'acknowledged')).stdout).toContain('token:tester: power cut, on it');
  });

  it('silences a router by name, routers by tag and rule, lists the silences and ends one', async () => {
    const before = Date.now();
    const one = await cli('alerts', 'silence', '--router', 'edge-fra-1', '--for', '2h', '--comment', 'FRA uplink work');
    expect(one.code, one.stderr).toBe(0);
    const [, id, end] =
      /^silence (\S+)\n {2}matches every rule, router (?:\S+)\n {2}until (\S+)$/.exec(one.stdout.trim()) ?? [];
    expect(id).toBeTruthy();
    const hours = (Date.parse(end!) - before) / 3_600_000;
    expect(hours).toBeGreaterThan(1.99);
    expect(hours).toBeLessThan(2.01);
    const stored = await api<{ items: { id: string; rule: string | null; selector: unknown; comment: string }[] }>(
      'GET',
      '/v1/silences',
    );
    expect(stored.body.items).toEqual([
      expect.objectContaining({
        id,
        rule: null,
        selector: { ids: [ids.get('edge-fra-1')] },
        comment: 'FRA uplink work',
      }),
    ]);
    await evaluate();
    const silenced = await json<{ items: AlertJson[] }>('alerts', 'ls', '--status', 'silenced');
    expect(silenced.items.map((a) => a.subject.name)).toEqual(['edge-fra-1']);

    const tagged = await json<{ id: string; rule: string; selector: unknown; endsAt: string }>(
      'alerts',
      'silence',
      '--tags',
      'site:ams',
      '--rule',
      'router-offline',
      '--for',
      '1h30m',
      '--comment',
      'AMS rack move',
    );
    expect(tagged).toMatchObject({ rule: 'router-offline', selector: { tags: ['site:ams'] } });
    expect(Date.parse(tagged.endsAt) - Date.now()).toBeGreaterThan(89 * 60_000);

    const list = await cli('alerts', 'silences');
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATE\s+MATCHES\s+STARTSAT\s+ENDSAT\s+CREATEDBY\s+COMMENT$/);
    expect(lines).toHaveLength(3);
    expect(list.stdout).toMatch(/running\s+rule router-offline, routers tagged site:ams\s+.*AMS rack move/);

    const ended = await cli('alerts', 'unsilence', id!);
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout.trim()).toBe(`ended silence ${id}`);
    const left = await json<{ items: { id: string }[] }>('alerts', 'silences');
    expect(left.items.map((s) => s.id)).toEqual([tagged.id]);
    const again = await cli('alerts', 'unsilence', id!);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no silence .* is running or waiting/);
  });

  it('refuses bad input: exit 2 for usage, 1 for what the API refuses', async () => {
    const usage = async (args: string[], message: RegExp) => {
      const r = await cli(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('usage: wrtfleet');
    };
    const base = ['alerts', 'silence', '--router', 'edge-fra-1', '--comment', 'x'];
    await usage([...base, '--for', 'two hours'], /--for must be a duration such as 30m, 2h or 1d12h .*got "two hours"/);
    await usage([...base, '--for', '2'], /--for must be a duration/);
    await usage([...base, '--for', '0m'], /--for must be longer than zero/);
    await usage(['alerts', 'silence', '--router', 'edge-fra-1', '--for', '1h'], /needs --comment TEXT/);
    await usage(['alerts', 'silence', '--router', 'edge-fra-1', '--comment', 'x'], /needs --for DURATION/);
    await usage(['alerts', 'silence', '--for', '1h', '--comment', 'x'], /needs what to silence/);
    await usage(
      ['alerts', 'ls', '--status', 'burning'],
      /--status must be one of active, firing, .*, all; got "burning"/,
    );
    await usage(['alerts', 'ls', '--severity', 'loud'], /--severity must be one of info, warning, critical/);
    await usage(['alerts', 'ack'], /alerts ack needs an alert id/);
    await usage(['alerts', 'frobnicate'], /unknown command "alerts frobnicate"/);
    await usage(['alert', 'ls'], /unknown command "alert ls": the groups are plural, as in "wrtfleet alerts ls"/);
    await usage(
      ['channel', 'add'],
      /unknown command "channel add": the groups are plural, as in "wrtfleet channels add"/,
    );

    const noRouter = await cli('alerts', 'ls', '--router', 'no-such-router');
    expect(noRouter.code).toBe(1);
    expect(noRouter.stderr).toMatch(/no router is named "no-such-router" or has that id/);
    const noAlert = await cli('alerts', 'ack', 'no-such-alert');
    expect(noAlert.code).toBe(1);
    expect(noAlert.stderr).toMatch(/no alert/);
    const badRule = await cli('alerts', 'silence', '--rule', 'Not A Rule', '--for', '1h', '--comment', 'x');
    expect(badRule.code).toBe(1);
  });
});
