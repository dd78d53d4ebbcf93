/**
 * `wrtfleet`: the controller's REST API for automation and operators.
 *
 * Connection: --url (or WRTFLEET_URL, default http://127.0.0.1:8080) and --token (or
 * WRTFLEET_TOKEN, or the file named by WRTFLEET_TOKEN_FILE, default ./data/admin-token).
 * Output: tables by default, --json for scripts. Exit codes: 0 success, 1 the API refused
 * or failed, 2 usage error, 3 a check failed (audit verify broken, rollout not completed).
 *
 * This file only dispatches: each verb group lives in cli/commands/.
 */
import { ApiCallError, ApiClient } from './api-client.js';
import {
  parseCommandLine,
  resolveToken,
  unknownCommand,
  UsageError,
  warnOldSpelling,
  type CliContext,
} from './cli-context.js';
import { accountVerb } from './commands/accounts.js';
import { alertsVerb } from './commands/alerts.js';
import { auditVerb } from './commands/audit.js';
import { channelsVerb } from './commands/channels.js';
import { commandVerb } from './commands/commands.js';
import { firmwareVerb } from './commands/firmware.js';
import { fleetApply, fleetExport } from './commands/intent.js';
import { onboardVerb } from './commands/onboard.js';
import { planVerb } from './commands/plan.js';
import { profilesVerb } from './commands/profiles.js';
import { rolloutVerb } from './commands/rollouts.js';
import { routersVerb } from './commands/routers.js';
import { USAGE } from './usage.js';

/** Verb groups by their first word; each gets the second word (the command) and the context. */
const GROUPS: Record<string, (ctx: CliContext, command: string | undefined) => Promise<number>> = {
  routers: routersVerb,
  profiles: profilesVerb,
  plan: planVerb,
  rollouts: rolloutVerb,
  firmware: firmwareVerb,
  audit: auditVerb,
  commands: commandVerb,
  accounts: accountVerb,
  alerts: alertsVerb,
  channels: channelsVerb,
  apply: (ctx, command) => (command === undefined ? fleetApply(ctx) : Promise.reject(unknownCommand('apply', command))),
  export: (ctx, command) =>
    command === undefined ? fleetExport(ctx) : Promise.reject(unknownCommand('export', command)),
};
/** 0.1's singular groups, accepted with a warning until 0.3. */
const OLD_GROUPS: Record<string, string> = { rollout: 'rollouts', command: 'commands', account: 'accounts' };

const { values: opts, positionals } = (() => {
  try {
    return parseCommandLine();
  } catch (err) {
    console.error(`wrtfleet: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
})();

async function main(): Promise<number> {
  if (opts.help || positionals.length === 0) {
    console.log(USAGE);
    return opts.help ? 0 : 2;
  }
  const api = new ApiClient(
    (opts.url ?? process.env.WRTFLEET_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, ''),
    await resolveToken(opts),
  );
  const [given, command, ...args] = positionals;
  const group = OLD_GROUPS[given!] ?? given;
  if (group !== given) warnOldSpelling(given!, group!);
  if (group === 'onboard') return onboardVerb({ opts, api, args: positionals.slice(1) });
  const verb = GROUPS[group!];
  if (!verb) {
    // Every group is spelled in the plural ("alerts", "channels"): say so to whoever types "alert".
    const plural = GROUPS[`${group}s`] ? `${group}s ${command ?? ''}`.trim() : null;
    const hint = plural ? `: the groups are plural, as in "wrtfleet ${plural}"` : '';
    throw new UsageError(`unknown command "${`${group} ${command ?? ''}`.trim()}"${hint}`);
  }
  return verb({ opts, api, args }, command);
}

try {
  process.exitCode = await main();
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`wrtfleet: ${err.message}\n${USAGE}`);
    process.exitCode = 2;
  } else if (err instanceof ApiCallError) {
    if (opts.json)
      console.error(
        JSON.stringify({ error: err.code, status: err.status, message: err.message, details: err.details }),
      );
    else
      console.error(
        `wrtfleet: ${err.message}${err.details?.length ? `\n${err.details.map((d) => `  ${d.path}: ${d.message}`).join('\n')}` : ''}`,
      );
    process.exitCode = 1;
  } else throw err;
}
