/**
 * How a plan preview reads as text: the lines `wrtfleet plan preview --router` prints and the
 * console's router page shows, from one function, so both say the same thing. Pure, importing
 * nothing and typed by shape only: it is the one module outside web-admin/src the browser code may
 * import (the ESLint boundaries say so).
 */

/** The parts of a plan (core/plan.ts, `Plan`) the text names. */
export interface PlanTextInput {
  satisfiable: boolean;
  planHash: string;
  datapath: { mode: string; attach?: string | null; programs: readonly { name: string }[] };
  offload: { mode: string };
  refusals: readonly { reason: string }[];
  decisions: readonly { topic: string; choice: string; reason: string }[];
}

/** The parts of GET /v1/routers/{id}/plan the text names. */
export interface PlanPreviewTextInput {
  name: string;
  effective: { profile: string; revision: number } | null;
  plan: PlanTextInput | null;
  changes: readonly { path: string }[];
}

/** The preview of one router as lines: headline, datapath, offload, refusals, every decision with its reason, changes. */
export function planPreviewLines(preview: PlanPreviewTextInput): string[] {
  const { plan: p, effective } = preview;
  if (!p || !effective) return [`${preview.name}: no profile assigned`];
  return [
    `${preview.name}: ${effective.profile}@${effective.revision} -> ${p.satisfiable ? 'satisfiable' : 'REFUSED'} (plan ${p.planHash.slice(0, 12)})`,
    `  datapath: ${p.datapath.mode}${p.datapath.attach ? ` via ${p.datapath.attach}` : ''}  programs: ${p.datapath.programs.map((x) => x.name).join(', ') || '-'}`,
    `  offload: ${p.offload.mode}`,
    ...p.refusals.map((x) => `  refused: ${x.reason}`),
    ...p.decisions.map((d) => `  - ${d.topic}: ${d.choice} (${d.reason})`),
    `  changes: ${preview.changes.length === 0 ? 'none' : preview.changes.map((c) => c.path).join(', ')}`,
  ];
}

/** The same preview as one text, as the CLI prints it. */
export function planPreviewText(preview: PlanPreviewTextInput): string {
  return planPreviewLines(preview).join('\n');
}
