/**
 * No hidden defaults in the profile editor, against a real controller and simulated routers,
 * in Debian's Chromium: a spec that only turns on TTL shows, before it is saved, that the IP
 * ID, timestamp and SYN window rewrites are on by default; the switches and the JSON edit the
 * same spec both ways; JSON that does not parse disables the switches and says why; what is
 * saved is what the editor showed; the revision diff and the plan preview still work.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityViolations } from './support/axe.js';
import { launchChromium, openPage, type PageProblems } from './support/browser.js';
import { startConsoleController, type ConsoleController } from './support/console-controller.js';
import { screenshotThemes } from './support/screenshots.js';
import { signInWithToken } from './support/sign-in.js';

const PROFILE = 'ttl-only';
const TTL_ONLY = `{
  "l3Rewrite": {
    "ttl": { "enabled": true, "value": 64 }
  }
}
`;

describe('the profile editor shows every default before saving (real controller, simulated routers)', () => {
  let ctl: ConsoleController;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    [ctl, browser] = await Promise.all([startConsoleController({ routersPerModel: 1 }), launchChromium()]);
    ({ page, problems } = await openPage(browser));
  });

  afterAll(async () => {
    await browser?.close();
    await ctl?.close();
  });

  const editor = () => page.getByLabel('Spec (JSON)');
  const programSwitch = (program: string) => page.getByRole('switch', { name: program, exact: true });
  const programRow = (program: string) =>
    page
      .getByRole('list', { name: 'Rewrite programs' })
      .getByRole('listitem')
      .filter({ has: programSwitch(program) });
  const saved = () => page.getByRole('list', { name: 'Spec as saved' });
  const savedLine = (pointer: string) => saved().locator(`li[data-pointer="${pointer}"]`);
  /** The spec as saved, read back from the page's lines. */
  const savedSpec = async () =>
    JSON.parse((await saved().locator('code').allInnerTexts()).join('\n')) as Record<string, unknown>;
  const typedSpec = async () => JSON.parse(await editor().inputValue()) as Record<string, unknown>;
  const api = async (path: string) => {
    const res = await fetch(`${ctl.url}${path}`, { headers: { authorization: `Bearer ${ctl.token}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };

  it('turning on only TTL shows the other three rewrites on by default, before saving', async () => {
    await signInWithToken(page, ctl.url, ctl.token, '/profiles?new=1');
    await page.getByRole('heading', { name: 'New profile' }).waitFor();
    await page.getByLabel('Profile name').fill(PROFILE);
    await editor().fill(TTL_ONLY);
    await page.getByText('The spec is valid.').waitFor();

    // The spec as saved: the three other rewrites on, each marked as a default; TTL as typed.
    for (const pointer of ['/l3Rewrite/ipid', '/l3Rewrite/tcpts', '/l3Rewrite/tcpwin/enabled']) {
      expect((await savedLine(pointer).innerText()).replace(/\s+/g, ' ').trim(), pointer).toMatch(
        /: true,?\s*default$/,
      );
      expect(await savedLine(pointer).getAttribute('data-default'), pointer).toBe('true');
    }
    expect(await savedLine('/l3Rewrite/ttl/enabled').getAttribute('data-default')).toBeNull();
    expect(await savedLine('/l3Rewrite/ttl/value').getAttribute('data-default')).toBeNull();
    await page.getByText(/^\d+ values not in the JSON will be saved with their default\.$/).waitFor();
    expect(await savedSpec()).toMatchObject({
      l3Rewrite: {
        ttl: { enabled: true, value: 64 },
        ipid: true,
        tcpts: true,
        tcpwin: { enabled: true, value: 65535 },
      },
      flowOffload: { mode: 'auto' },
    });

    // The switches say the same: all four programs on, three of them by default.
    for (const program of ['set_ip_ttl', 'set_ip_id_zero', 'set_tcp_syn_window', 'clear_tcp_syn_ts'])
      expect(await programSwitch(program).isChecked(), program).toBe(true);
    for (const program of ['set_ip_id_zero', 'set_tcp_syn_window', 'clear_tcp_syn_ts'])
      expect(await programRow(program).getByText('default', { exact: true }).count(), program).toBeGreaterThan(0);
    expect(
      await programRow('set_ip_ttl').locator('.wf-program__head').getByText('default', { exact: true }).count(),
    ).toBe(0);
    expect(await page.getByLabel('TTL value', { exact: true }).inputValue()).toBe('64');
    expect(await page.getByLabel('SYN window value', { exact: true }).inputValue()).toBe('65535');
    expect(await page.getByLabel('Offload mode', { exact: true }).inputValue()).toBe('auto');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'profile-editor-defaults');
  });

  it('keeps the switches and the JSON in step, both ways', async () => {
    // A switch flip writes an explicit value into the JSON, and it stops being a default.
    await programSwitch('set_ip_id_zero').click();
    await expect.poll(async () => ((await typedSpec()).l3Rewrite as Record<string, unknown>).ipid).toBe(false);
    expect(await programSwitch('set_ip_id_zero').isChecked()).toBe(false);
    expect(await programRow('set_ip_id_zero').getByText('default', { exact: true }).count()).toBe(0);
    expect(await savedLine('/l3Rewrite/ipid').getAttribute('data-default')).toBeNull();
    expect((await savedLine('/l3Rewrite/ipid').innerText()).trim()).toBe('"ipid": false,');

    // A setting typed in the form lands in the JSON.
    await page.getByLabel('TTL value', { exact: true }).fill('128');
    await expect.poll(async () => (await typedSpec()).l3Rewrite).toMatchObject({ ttl: { value: 128 } });
    await page.getByLabel('Offload mode', { exact: true }).selectOption('software');
    await expect.poll(async () => (await typedSpec()).flowOffload).toEqual({ mode: 'software' });

    // JSON typed by hand moves the switches.
    const typed = await typedSpec();
    (typed.l3Rewrite as Record<string, unknown>).tcpts = false;
    await editor().fill(JSON.stringify(typed, null, 2));
    await expect.poll(() => programSwitch('clear_tcp_syn_ts').isChecked()).toBe(false);
    expect(await programRow('clear_tcp_syn_ts').getByText('default', { exact: true }).count()).toBe(0);
    expect(await programSwitch('set_tcp_syn_window').isChecked()).toBe(true);

    // "use default" takes the value out of the JSON again.
    await page.getByRole('button', { name: 'use default (on) for clear_tcp_syn_ts' }).click();
    await expect.poll(() => programSwitch('clear_tcp_syn_ts').isChecked()).toBe(true);
    expect('tcpts' in ((await typedSpec()).l3Rewrite as Record<string, unknown>)).toBe(false);
    expect(await savedLine('/l3Rewrite/tcpts').getAttribute('data-default')).toBe('true');
  });

  it('disables the switches while the JSON does not parse, and says why', async () => {
    const good = await editor().inputValue();
    await editor().fill('{\n  "l3Rewrite": {\n    "ipid": false,\n  }\n}');
    const form = page.getByRole('group', { name: 'Switches' });
    await form.getByText(/^The JSON does not parse \(line 4, column 3: .*\): fix it to use the switches\.$/).waitFor();
    expect(await form.getAttribute('disabled')).not.toBeNull();
    expect(await programSwitch('set_ip_ttl').isDisabled()).toBe(true);
    expect(await page.getByLabel('TTL value', { exact: true }).isDisabled()).toBe(true);
    await page.getByText('Shown again once the JSON parses.').waitFor();
    expect(await saved().count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create profile' }).isDisabled()).toBe(true);
    // Valid JSON the switches cannot edit says where.
    await editor().fill('{ "drift": "reapply" }');
    await form.getByText('The switches cannot edit this spec: /drift is not an object.').waitFor();
    // The spec as saved still shows, the wrong value kept as typed for the check to name.
    expect(await savedSpec()).toMatchObject({ drift: 'reapply', l3Rewrite: { ipid: true } });
    expect(await form.getAttribute('disabled')).not.toBeNull();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'profile-editor-unparsed');

    await editor().fill(good);
    await page.getByText('The spec is valid.').waitFor();
    expect(await form.getAttribute('disabled')).toBeNull();
    expect(await programSwitch('set_ip_id_zero').isChecked()).toBe(false);
  });

  it('saves exactly the spec it showed, and an existing revision shows no default', async () => {
    const shown = await savedSpec();
    await page.getByRole('button', { name: 'Create profile' }).click();
    await page.getByRole('heading', { name: `Edit ${PROFILE}` }).waitFor();
    const stored = await api(`/v1/profiles/${PROFILE}`);
    expect(stored.revision).toBe(1);
    expect(stored.spec).toEqual(shown);
    // A stored revision holds every value: the editor starts from it, nothing is a default.
    await page.getByText('Every value is in the JSON.').waitFor();
    expect(await saved().locator('li[data-default]').count()).toBe(0);
    expect(
      await page.getByRole('list', { name: 'Rewrite programs' }).getByText('default', { exact: true }).count(),
    ).toBe(0);
    expect(await programSwitch('set_ip_id_zero').isChecked()).toBe(false);
    expect(await page.getByLabel('TTL value', { exact: true }).inputValue()).toBe('128');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshotThemes(page, 'profile-editor-stored');
  });

  it('a switch saves a second revision; the diff and the plan preview still work', async () => {
    await programSwitch('set_tcp_syn_window').click();
    await expect.poll(async () => (await typedSpec()).l3Rewrite).toMatchObject({ tcpwin: { enabled: false } });
    await page.getByRole('button', { name: 'Save revision' }).click();
    await page.getByText(`Saved revision 2 of ${PROFILE}.`).waitFor();
    expect((await api(`/v1/profiles/${PROFILE}`)).spec).toMatchObject({ l3Rewrite: { tcpwin: { enabled: false } } });

    await page.getByLabel('From', { exact: true }).selectOption('1');
    await page.getByLabel('To', { exact: true }).selectOption('2');
    await page.getByText('1 line removed, 1 added from revision 1 to 2.').waitFor();

    await page.getByLabel('Revision to preview').selectOption('2');
    await page.getByLabel('SoC').fill('MT7621');
    await page.getByRole('button', { name: 'Preview plan' }).click();
    await page.getByText(/^1 routers matched/).waitFor();
    const rows = page.getByRole('table', { name: 'Plan preview per router' }).locator('tbody tr');
    expect(await rows.count()).toBe(1);
    // The SYN window rewrite this revision turned off is not in the plan's changes.
    expect((await rows.first().locator('td').allInnerTexts()).map((t) => t.trim()).slice(1, 3)).toEqual([
      'yes',
      'ebpf',
    ]);
    expect(problems.errors).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
  });
});
