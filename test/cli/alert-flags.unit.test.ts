import { describe, expect, it } from 'vitest';
import { alertListQuery, describeSilenceMatch, parseDuration, silenceBody } from '../../cli/alert-flags.js';
import { parseCommandLine, UsageError } from '../../cli/cli-context.js';

const opts = (...args: string[]) => parseCommandLine(args).values;
const NOW = Date.parse('2026-12-07T10:00:00Z');

describe('--for', () => {
  it('reads a number and a unit, or several', () => {
    expect(parseDuration('30m')).toBe(1_800);
    expect(parseDuration('2h')).toBe(7_200);
    expect(parseDuration('1d12h')).toBe(129_600);
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('1w')).toBe(604_800);
    expect(parseDuration('2H')).toBe(7_200);
  });

  it.each(['2', 'two hours', '2 h', '1.5h', 'h', '-1h', '', '2y'])('refuses "%s" as a usage error', (text) =>
    expect(() => parseDuration(text)).toThrow(UsageError),
  );

  it('refuses zero, naming the flag', () => {
    expect(() => parseDuration('0m')).toThrow('--for must be longer than zero; got "0m"');
  });
});

describe('alerts ls', () => {
  it('asks for the active alerts by default, every status with all', () => {
    expect(alertListQuery(opts(), undefined)).toEqual({
      status: 'active',
      severity: undefined,
      rule: undefined,
      router: undefined,
    });
    expect(alertListQuery(opts('--status', 'all', '--severity', 'critical', '--rule', 'x'), 'r-1')).toEqual({
      status: undefined,
      severity: 'critical',
      rule: 'x',
      router: 'r-1',
    });
  });

  it('takes one --rule', () => {
    expect(() => alertListQuery(opts('--rule', 'a', '--rule', 'b'), undefined)).toThrow(
      'alerts ls takes one --rule; got 2',
    );
  });

  it('refuses a status or a severity the API does not have', () => {
    expect(() => alertListQuery(opts('--status', 'burning'), undefined)).toThrow(UsageError);
    expect(() => alertListQuery(opts('--severity', 'loud'), undefined)).toThrow(UsageError);
  });
});

describe('alerts silence', () => {
  it('names the router by id, tags and rule as given', () => {
    expect(silenceBody(opts('--router', 'edge-1', '--for', '2h', '--comment', ' work '), 'r-1', NOW)).toEqual({
      selector: { ids: ['r-1'] },
      comment: 'work',
      endsAt: '2026-12-07T12:00:00.000Z',
    });
    expect(
      silenceBody(
        opts('--tags', 'site:ams', '--rule', 'router-offline', '--for', '30m', '--comment', 'x'),
        undefined,
        NOW,
      ),
    ).toEqual({
      rule: 'router-offline',
      selector: { tags: ['site:ams'] },
      comment: 'x',
      endsAt: '2026-12-07T10:30:00.000Z',
    });
  });

  it('needs a target, a duration and a comment', () => {
    expect(() => silenceBody(opts('--for', '1h', '--comment', 'x'), undefined, NOW)).toThrow(/needs what to silence/);
    expect(() => silenceBody(opts('--rule', 'r', '--comment', 'x'), undefined, NOW)).toThrow(/needs --for/);
    expect(() => silenceBody(opts('--rule', 'r', '--for', '1h', '--comment', ' '), undefined, NOW)).toThrow(
      /needs --comment/,
    );
  });

  it('reads back in words', () => {
    expect(describeSilenceMatch({ rule: null, selector: { ids: ['r-1'] } })).toBe('every rule, router r-1');
    expect(describeSilenceMatch({ rule: 'x', selector: { tags: ['a', 'b'] } })).toBe('rule x, routers tagged a and b');
    expect(describeSilenceMatch({ rule: 'x', selector: null })).toBe('rule x, every subject');
  });
});
