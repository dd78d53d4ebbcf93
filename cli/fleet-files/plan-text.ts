/**
 * A fleet plan as text, read the way Terraform's is: one block per resource with what happens
 * to it and its spec diff, the routers each assignment or firmware policy reaches, then a
 * summary line. Resources with nothing to do are counted, not listed.
 */
import type { ResponseOf } from '../api-client.js';

export type IntentPlan = ResponseOf<'/v1/plan', 'post'>;
type Resource = IntentPlan['resources'][number];

const SIGN: Record<Resource['action'], string> = {
  create: '+',
  update: '~',
  adopt: '=',
  delete: '-',
  unchanged: ' ',
  orphan: '?',
};

const value = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

function headline(r: Resource): string {
  const id = `${r.kind} ${r.name}`;
  switch (r.action) {
    case 'create':
      return `${id}: create${r.kind === 'Profile' ? ' (revision 1)' : ''}`;
    case 'update':
      return `${id}: ${r.kind === 'Profile' ? `new revision ${r.version.planned}` : `update to version ${r.version.planned}`}`;
    case 'adopt':
      return `${id}: mark as managed from these files (spec unchanged)`;
    case 'delete':
      return `${id}: remove${r.kind === 'Profile' ? ' (archived: its revisions stay)' : ''}`;
    case 'orphan':
      return `${id}: no longer in the files; kept (--prune removes it)`;
    case 'unchanged':
      return `${id}: unchanged`;
  }
}

function reachLines(reach: NonNullable<Resource['reach']>): string[] {
  const c = reach.counts;
  const lines = [
    `    routers: ${reach.matched} selected for ${reach.target}: ${c.change} change, ${c.revision} new revision only, ` +
      `${c.retry ? `${c.retry} retry, ` : ''}${c.unchanged} already there, ${c.refused} refused`,
  ];
  lines.push(
    reach.rollout
      ? `    rollout: ${reach.rollout.routers} routers through ${reach.rollout.policy ? `policy ${reach.rollout.policy}` : 'the default strategy'}`
      : '    rollout: none (every router is there or on its way)',
  );
  const width = Math.max(0, ...reach.routers.map((r) => r.name.length));
  for (const r of reach.routers.filter((x) => x.verdict !== 'unchanged'))
    lines.push(
      `      ${r.name.padEnd(width)}  ${r.verdict.padEnd(8)}  from ${r.from ?? 'nothing'}${r.reason ? `: ${r.reason}` : ''}`,
    );
  if (reach.matched > reach.routers.length) lines.push(`      ... and ${reach.matched - reach.routers.length} more`);
  return lines;
}

export function planText(plan: IntentPlan): string {
  const out: string[] = [];
  let unchanged = 0;
  for (const r of plan.resources) {
    if (r.action === 'unchanged' && !r.reach?.rollout && !r.drift) {
      unchanged += 1;
      continue;
    }
    out.push(`${SIGN[r.action]} ${headline(r)}`);
    if (r.drift) out.push(`    drift: ${r.drift}`);
    for (const d of r.diff)
      out.push(
        `    ${d.op === 'add' ? '+' : d.op === 'remove' ? '-' : '~'} ${d.path}: ${value(d.before)} -> ${value(d.after)}`,
      );
    if (r.reach) out.push(...reachLines(r.reach));
  }
  const count = (a: Resource['action']) => plan.resources.filter((r) => r.action === a).length;
  const rollouts = plan.resources.filter((r) => r.reach?.rollout).length;
  out.push(
    plan.changes === 0
      ? `No changes: the fleet matches the files (${unchanged} resources).`
      : `Plan: ${count('create')} to create, ${count('update')} to update, ${count('adopt')} to adopt, ${count('delete')} to remove, ${rollouts} rollouts to start.`,
  );
  const orphans = count('orphan');
  if (orphans) out.push(`${orphans} managed resources are no longer in the files and are kept; --prune removes them.`);
  return out.join('\n');
}
