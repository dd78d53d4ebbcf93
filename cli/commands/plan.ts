/** `wrtfleet plan preview`: what a profile revision would do, for one router or a selection. */
import type * as Api from '../api-client.js';
import { intOpt, print, query, selectorFromOpts, UsageError, unknownCommand, type CliContext } from '../cli-context.js';
import { table } from '../output.js';
import { fleetPlan } from './intent.js';
// The console's router page shows the same text: one renderer for both clients of the API.
import { planPreviewText, type PlanTextInput } from '../../core/plan/plan-text.js';

export async function planVerb(ctx: CliContext, command: string | undefined): Promise<number> {
  // `plan -f DIR`: the fleet as code; `plan preview`: one profile revision against routers.
  if (command === undefined && ctx.opts.file) return fleetPlan(ctx);
  if (command !== 'preview') throw unknownCommand('plan', command);
  const { opts, api } = ctx;
  if (opts.router) {
    const r = await api.get<Api.RouterPlanPreview>(
      `/v1/routers/${encodeURIComponent(opts.router)}/plan${query({ profile: opts.profile, revision: intOpt('revision', opts.revision) })}`,
    );
    // The API documents a plan as an object of the plan's shape, not its fields; the renderer reads only these.
    print(opts, r, () => planPreviewText({ ...r, plan: r.plan as PlanTextInput | null }));
    return 0;
  }
  if (!opts.profile) throw new UsageError('plan preview needs --router ID, or --profile NAME with a selector');
  const r = await api.call<Api.FleetPlanPreview>('POST', '/v1/plan-preview', {
    profile: opts.profile,
    revision: intOpt('revision', opts.revision),
    selector: selectorFromOpts(opts),
  });
  print(opts, r, () =>
    [
      table(
        r.items.map((i) => {
          const plan = i.plan as PlanTextInput;
          return {
            router: i.name,
            satisfiable: plan.satisfiable,
            datapath: plan.datapath.mode,
            offload: plan.offload.mode,
            changes: i.changes.length,
          };
        }),
        ['router', 'satisfiable', 'datapath', 'offload', 'changes'],
      ),
      `${r.matched} ${r.matched === 1 ? 'router' : 'routers'} matched: ${r.summary.changing} would change, ${r.summary.unchanged} unchanged, ${r.summary.refused} refused by the plan`,
    ].join('\n'),
  );
  return 0;
}
