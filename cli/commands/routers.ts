/** `wrtfleet routers ls|show|tag|re-enroll`: the fleet as stored. */
import type * as Api from '../api-client.js';
import { intOpt, print, query, UsageError, unknownCommand, type CliContext } from '../cli-context.js';
import { table } from '../output.js';

export async function routersVerb({ opts, args, api }: CliContext, command: string | undefined): Promise<number> {
  switch (command) {
    case 'ls': {
      const page = await api.get<Api.RouterPage>(
        `/v1/routers${query({ soc: opts.soc?.[0], status: opts.status, limit: intOpt('limit', opts.limit) ?? 100 })}`,
      );
      print(opts, page, () =>
        table(
          page.items.map((r) => ({
            ...r,
            release: r.openwrt?.release,
            applied: r.appliedRevision ? `${r.appliedRevision.profile}@${r.appliedRevision.revision}` : null,
          })),
          ['id', 'name', 'status', 'soc', 'arch', 'kernel', 'release', 'applied'],
        ),
      );
      return 0;
    }
    case 'show': {
      if (!args[0]) throw new UsageError('routers show needs a router id');
      const r = await api.get<unknown>(`/v1/routers/${encodeURIComponent(args[0])}`);
      print(opts, r, () => JSON.stringify(r, null, 2));
      return 0;
    }
    case 'tag': {
      if (!args[0]) throw new UsageError('routers tag needs a router id and tags');
      const r = await api.call<{ id: string; tags: string[] }>(
        'PUT',
        `/v1/routers/${encodeURIComponent(args[0])}/tags`,
        {
          tags: args.slice(1),
        },
      );
      print(opts, r, () => `${r.id}: ${r.tags.join(' ')}`);
      return 0;
    }
    case 're-enroll': {
      if (!args[0]) throw new UsageError('routers re-enroll needs a router id');
      const ttl = intOpt('expires-in', opts['expires-in']);
      const r = await api.call<Api.ReenrollToken>(
        'POST',
        `/v1/routers/${encodeURIComponent(args[0])}/re-enroll`,
        ttl === undefined ? null : { expiresInSeconds: ttl },
      );
      // The token is the one output a script needs; the rest says how to use it.
      print(
        opts,
        r,
        () =>
          `${r.token}\n# single-use, for ${r.identity} only, until ${r.expiresAt}; on the router:\n` +
          `#   agent run --controller ${r.grpcAddress} --credentials-dir DIR --enroll-token-file FILE --ca-fingerprint ${r.caFingerprint}`,
      );
      return 0;
    }
    default:
      throw unknownCommand('routers', command);
  }
}
