/** `wrtfleet channels add|ls|test|rm`: where alert notifications go (webhook, Slack, e-mail). */
import type { ApiClient } from '../api-client.js';
import type * as Api from '../api-client.js';
import { intOpt, print, UsageError, unknownCommand, type CliContext, type CliOptions } from '../cli-context.js';
import { table } from '../output.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** HOST[:PORT], a bracketed IPv6 address too ([::1]:25). */
function smtpServer(value: string): { host: string; port?: number } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(value);
  if (!m) throw new UsageError(`--smtp takes HOST[:PORT], got "${value}"`);
  return { host: m[1]!, port: m[2] === undefined ? undefined : intOpt('smtp', m[2]) };
}

function smtpTls(opts: CliOptions): 'implicit' | 'starttls' | 'none' | undefined {
  const given = (['tls', 'starttls', 'no-tls'] as const).filter((f) => opts[f]);
  if (given.length > 1) throw new UsageError('give one of --tls, --starttls, --no-tls');
  return given[0] === 'tls' ? 'implicit' : given[0] === 'no-tls' ? 'none' : given[0];
}

/** The request body from the flags: exactly one of --webhook, --slack, --email. */
async function channelBody(name: string, opts: CliOptions): Promise<Record<string, unknown>> {
  const kinds = (['webhook', 'slack', 'email'] as const).filter((k) => opts[k] !== undefined);
  if (kinds.length !== 1) throw new UsageError('channels add needs one of --webhook URL, --slack URL, --email ADDR');
  const body: Record<string, unknown> = { name };
  if (opts['min-severity']) body.minSeverity = opts['min-severity'];
  if (opts.rule) body.rules = opts.rule;
  if (opts.webhook) body.webhook = { url: opts.webhook };
  // The Slack URL is a credential: "-" reads it from standard input, out of the shell's history and ps.
  if (opts.slack) body.slack = { url: opts.slack === '-' ? await readStdin() : opts.slack };
  if (opts.email) {
    if (!opts.smtp) throw new UsageError('--email needs --smtp HOST[:PORT]');
    if (!opts.from) throw new UsageError('--email needs --from ADDR (the sender)');
    if (opts['smtp-password-stdin'] && !opts['smtp-user'])
      throw new UsageError('--smtp-password-stdin needs --smtp-user');
    body.email = {
      ...smtpServer(opts.smtp),
      tls: smtpTls(opts),
      user: opts['smtp-user'],
      password: opts['smtp-password-stdin'] ? await readStdin() : undefined,
      from: opts.from,
      to: opts.email
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    };
  }
  return body;
}

/** Where a channel sends, in a table cell. */
function targetText(c: Api.ChannelList['items'][number]): string {
  if (c.webhook) return c.webhook.url;
  if (c.slack) return c.slack.url;
  if (c.email) return `${c.email.to.join(',')} via ${c.email.host}:${c.email.port}`;
  return '-';
}

async function addChannel({ opts, args, api }: CliContext): Promise<number> {
  const name = args[0];
  if (!name) throw new UsageError('channels add needs a NAME');
  const created = await api.call<Api.CreatedChannel>('POST', '/v1/channels', await channelBody(name, opts));
  print(opts, created, () => {
    const lines = [`created channel ${created.name} (${created.kind}): ${targetText(created)}`];
    if (created.secret)
      lines.push(
        `signing secret: ${created.secret}`,
        'This secret is not shown again: give it to the receiver now (it verifies wrtfleet-signature with it).',
      );
    return lines.join('\n');
  });
  return 0;
}

async function testChannel(api: ApiClient, opts: CliOptions, name: string | undefined): Promise<number> {
  if (!name) throw new UsageError('channels test needs a NAME');
  const result = await api.call<Api.ChannelTestResult>('POST', `/v1/channels/${encodeURIComponent(name)}/test`);
  const status = result.statusCode === null ? '' : ` (${result.statusCode})`;
  print(opts, result, () =>
    result.outcome === 'delivered'
      ? `delivered${status} in ${result.durationMs} ms`
      : `not delivered${status} after ${result.durationMs} ms: ${result.error ?? result.outcome}`,
  );
  return result.outcome === 'delivered' ? 0 : 1;
}

export async function channelsVerb(ctx: CliContext, command: string | undefined): Promise<number> {
  const { opts, args, api } = ctx;
  switch (command) {
    case 'add':
      return addChannel(ctx);
    case 'ls': {
      const list = await api.get<Api.ChannelList>('/v1/channels');
      print(opts, list, () =>
        table(
          list.items.map((c) => ({ ...c, target: targetText(c), rules: c.rules.join(',') || 'all' })),
          ['name', 'kind', 'target', 'minSeverity', 'rules', 'createdAt'],
        ),
      );
      return 0;
    }
    case 'test':
      return testChannel(api, opts, args[0]);
    case 'rm': {
      if (!args[0]) throw new UsageError('channels rm needs a NAME');
      await api.raw('DELETE', `/v1/channels/${encodeURIComponent(args[0])}`);
      print(opts, { removed: args[0] }, () => `removed channel ${args[0]}`);
      return 0;
    }
    default:
      throw unknownCommand('channels', command);
  }
}
