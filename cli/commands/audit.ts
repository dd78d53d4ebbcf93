/** `wrtfleet audit ls|verify|export`: the hash-chained history. */
import { writeFile } from 'node:fs/promises';
import type * as Api from '../api-client.js';
import { intOpt, print, query, unknownCommand, type CliContext, type CliOptions } from '../cli-context.js';
import { table } from '../output.js';

const filters = (opts: CliOptions) => ({
  router: opts.router,
  profile: opts.profile,
  rollout: opts.rollout,
  actor: opts.actor,
  from: opts.from,
  to: opts.to,
});

export async function auditVerb({ opts, api }: CliContext, command: string | undefined): Promise<number> {
  switch (command) {
    case 'ls': {
      const r = await api.get<Api.Rows>(`/v1/audit${query({ ...filters(opts), limit: intOpt('limit', opts.limit) })}`);
      print(opts, r, () => table(r.items, ['seq', 'at', 'actor', 'action', 'targetType', 'targetId']));
      return 0;
    }
    case 'verify': {
      const r = await api.get<Api.AuditVerdict>('/v1/audit/verify');
      print(opts, r, () =>
        r.ok
          ? `audit chain intact: ${r.checked} events`
          : [
              r.firstBroken
                ? `audit chain BROKEN at event ${r.firstBroken.seq} (${r.firstBroken.id}): ${r.firstBroken.reason}`
                : `audit chain intact: ${r.checked} events`,
              ...(r.missingCount > 0
                ? [
                    `${r.missingCount} without their creating event:`,
                    ...r.missing.map((m) => `  ${m.kind} ${m.label ?? m.id}`),
                  ]
                : []),
            ].join('\n'),
      );
      return r.ok ? 0 : 3;
    }
    case 'export': {
      const text = await api.lines(`/v1/audit/export${query(filters(opts))}`);
      if (opts.output) {
        await writeFile(opts.output, text);
        console.error(`wrote ${text ? text.trimEnd().split('\n').length : 0} events to ${opts.output}`);
      } else process.stdout.write(text);
      return 0;
    }
    default:
      throw unknownCommand('audit', command);
  }
}
