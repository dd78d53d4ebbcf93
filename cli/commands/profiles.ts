/** `wrtfleet profiles ls|show|apply`: profiles and their revisions. */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { ApiCallError } from '../api-client.js';
import type * as Api from '../api-client.js';
import { intOpt, print, UsageError, unknownCommand, type CliContext } from '../cli-context.js';
import { table } from '../output.js';

export async function profilesVerb({ opts, args, api }: CliContext, command: string | undefined): Promise<number> {
  switch (command) {
    case 'ls': {
      const page = await api.get<Api.Rows>('/v1/profiles?limit=500');
      print(opts, page, () => table(page.items, ['name', 'latestRevision', 'updatedAt']));
      return 0;
    }
    case 'show': {
      if (!args[0]) throw new UsageError('profiles show needs a profile name');
      const rev = intOpt('revision', opts.revision);
      const r = await api.get<unknown>(rev ? `/v1/profiles/${args[0]}/revisions/${rev}` : `/v1/profiles/${args[0]}`);
      print(opts, r, () => JSON.stringify(r, null, 2));
      return 0;
    }
    case 'apply': {
      if (!opts.file) throw new UsageError('profiles apply needs -f FILE');
      const text = await readFile(opts.file, 'utf8');
      let doc: unknown;
      try {
        doc = opts.file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
      } catch (err) {
        throw new UsageError(
          `${opts.file} is not valid ${opts.file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
        );
      }
      // A file is either { name, spec } or a bare spec named by --name.
      const name = opts.name ?? (doc && typeof doc === 'object' && 'name' in doc ? doc.name : undefined);
      const spec = doc && typeof doc === 'object' && 'spec' in doc ? doc.spec : doc;
      if (!name) throw new UsageError('the profile needs a name: a top-level "name" in the file, or --name');
      let base = 0;
      try {
        base = (await api.get<{ revision: number }>(`/v1/profiles/${encodeURIComponent(String(name))}`)).revision;
      } catch (err) {
        if (!(err instanceof ApiCallError && err.status === 404)) throw err;
      }
      const r = await api.call<Api.SaveResult>('PUT', `/v1/profiles/${encodeURIComponent(String(name))}`, {
        spec,
        baseRevision: base,
      });
      print(opts, r, () =>
        r.changed
          ? `profile ${name}: revision ${r.revision}${r.created ? ' (created)' : ''}`
          : `profile ${name}: unchanged at revision ${r.revision}`,
      );
      return 0;
    }
    default:
      throw unknownCommand('profiles', command);
  }
}
