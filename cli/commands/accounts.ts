/** `wrtfleet accounts create|ls|role|disable|enable|reset-password|rm`: operator accounts of the console. */
import { print, UsageError, unknownCommand, type CliContext } from '../cli-context.js';
import type * as Api from '../api-client.js';
import { API_ENUMS } from '../../web-admin/src/api/api-enums.generated.js';
import { table } from '../output.js';
import { readNewPassword } from '../password-input.js';

const ROLES: readonly string[] = API_ENUMS.Role;

function role(value: string | undefined): string {
  if (!value || !ROLES.includes(value)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return value;
}

function accountName(args: string[]): string {
  const name = args[0];
  if (!name) throw new UsageError('name the account');
  return encodeURIComponent(name);
}

export async function accountVerb({ opts, api, args }: CliContext, command: string | undefined): Promise<number> {
  switch (command) {
    case 'create': {
      const name = args[0];
      if (!name) throw new UsageError('usage: wrtfleet accounts create NAME --role read|write|admin');
      const body = { name, role: role(opts.role), password: await readNewPassword(opts['password-file']) };
      const created = await api.call<Record<string, unknown>>('POST', '/v1/accounts', body);
      print(opts, created, () => `created account ${name} (${body.role}); sign in to the console with it`);
      return 0;
    }
    case 'ls': {
      const r = await api.get<Api.Rows>('/v1/accounts');
      print(opts, r, () => table(r.items, ['name', 'role', 'disabled', 'lastSignInAt', 'createdBy', 'createdAt']));
      return 0;
    }
    case 'role': {
      const r = await api.call('PATCH', `/v1/accounts/${accountName(args)}`, { role: role(opts.role) });
      print(opts, r, () => `${args[0]} is now ${opts.role}`);
      return 0;
    }
    case 'disable':
    case 'enable': {
      const r = await api.call('PATCH', `/v1/accounts/${accountName(args)}`, { disabled: command === 'disable' });
      print(opts, r, () => `${args[0]} ${command}d${command === 'disable' ? '; its sessions ended' : ''}`);
      return 0;
    }
    case 'reset-password': {
      const password = await readNewPassword(opts['password-file']);
      await api.raw('PUT', `/v1/accounts/${accountName(args)}/password`, { password });
      print(opts, { name: args[0] }, () => `new password set for ${args[0]}; its sessions ended`);
      return 0;
    }
    case 'rm': {
      await api.raw('DELETE', `/v1/accounts/${accountName(args)}`);
      print(opts, { name: args[0] }, () => `deleted account ${args[0]}`);
      return 0;
    }
    default:
      throw unknownCommand('accounts', command);
  }
}
