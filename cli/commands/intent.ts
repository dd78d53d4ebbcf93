/**
 * `wrtfleet plan -f DIR`, `wrtfleet apply -f DIR | --plan FILE` and `wrtfleet export -o DIR`:
 * the fleet as code (docs/FLEET-AS-CODE.md). The controller computes every plan (POST /v1/plan);
 * the CLI reads the files, places the controller's errors at their file and line, and prints.
 *
 * Exit codes of plan, as Terraform's -detailed-exitcode: 0 no changes, 2 changes, 1 an error.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { ApiCallError, type ResponseOf } from '../api-client.js';
import { UsageError, type CliContext } from '../cli-context.js';
import { FleetFileError, placeErrors, readFleetDirectory, type FleetDocument } from '../fleet-files/fleet-directory.js';
import { planText, type IntentPlan } from '../fleet-files/plan-text.js';

type Applied = ResponseOf<'/v1/apply', 'post'>;
type Exported = ResponseOf<'/v1/export', 'get'>;

/** What `plan -o FILE` saves and `apply --plan FILE` applies: the documents and the state they were planned against. */
interface SavedPlan {
  wrtfleetPlan: 1;
  createdAt: string;
  directory: string;
  prune: boolean;
  documents: { file: string; value: unknown }[];
  plan: IntentPlan;
}

/** The files' folder for each kind, as export writes them. */
const KIND_DIRS: Record<string, string> = {
  Profile: 'profiles',
  RolloutPolicy: 'rollout-policies',
  Assignment: 'assignments',
  FirmwarePolicy: 'firmware-policies',
};

/** A refusal of the documents, placed at files and lines where the request came from files. */
function placed(err: unknown, documents: Pick<FleetDocument, 'file'>[] | FleetDocument[]): unknown {
  if (!(err instanceof ApiCallError) || err.code !== 'invalid_documents' || !err.details) return err;
  if (!documents.every((d) => 'yaml' in d)) return err;
  return new FleetFileError(placeErrors(documents as FleetDocument[], err.details));
}

function report(ctx: CliContext, err: unknown): number {
  if (!(err instanceof FleetFileError)) throw err;
  if (ctx.opts.json) console.error(JSON.stringify({ error: 'invalid_documents', problems: err.problems }));
  else console.error(`wrtfleet: the files were refused:\n${err.message}`);
  return 1;
}

async function readDirectory(ctx: CliContext): Promise<FleetDocument[]> {
  if (!ctx.opts.file) throw new UsageError('give the fleet directory with -f DIR');
  return readFleetDirectory(ctx.opts.file);
}

export async function fleetPlan(ctx: CliContext): Promise<number> {
  let documents: FleetDocument[];
  try {
    documents = await readDirectory(ctx);
  } catch (err) {
    return report(ctx, err);
  }
  const prune = ctx.opts.prune ?? false;
  let plan: IntentPlan;
  try {
    plan = await ctx.api.call<IntentPlan>('POST', '/v1/plan', { documents: documents.map((d) => d.value), prune });
  } catch (err) {
    return report(ctx, placed(err, documents));
  }
  if (ctx.opts.output) {
    const saved: SavedPlan = {
      wrtfleetPlan: 1,
      createdAt: new Date().toISOString(),
      directory: ctx.opts.file!,
      prune,
      documents: documents.map((d) => ({ file: d.file, value: d.value })),
      plan,
    };
    await writeFile(ctx.opts.output, `${JSON.stringify(saved, null, 2)}\n`);
  }
  if (ctx.opts.json) console.log(JSON.stringify(plan, null, 2));
  else {
    console.log(planText(plan));
    if (ctx.opts.output) console.log(`Saved to ${ctx.opts.output}: wrtfleet apply --plan ${ctx.opts.output}`);
  }
  return plan.changes === 0 ? 0 : 2;
}

async function readSavedPlan(file: string): Promise<SavedPlan> {
  let saved: SavedPlan;
  try {
    saved = JSON.parse(await readFile(file, 'utf8')) as SavedPlan;
  } catch (err) {
    throw new UsageError(`cannot read the saved plan ${file}: ${(err as Error).message}`);
  }
  if (saved?.wrtfleetPlan !== 1 || !Array.isArray(saved.documents) || !saved.plan?.state)
    throw new UsageError(`${file} is not a plan saved by wrtfleet plan -o`);
  return saved;
}

export async function fleetApply(ctx: CliContext): Promise<number> {
  const { opts, api } = ctx;
  if (opts.plan && opts.file) throw new UsageError('give either -f DIR or --plan FILE, not both');
  let body: Record<string, unknown>;
  let documents: Pick<FleetDocument, 'file'>[] | FleetDocument[];
  if (opts.plan) {
    const saved = await readSavedPlan(opts.plan);
    documents = saved.documents;
    body = { documents: saved.documents.map((d) => d.value), prune: saved.prune, expectState: saved.plan.state };
  } else {
    try {
      documents = await readDirectory(ctx);
    } catch (err) {
      return report(ctx, err);
    }
    body = { documents: (documents as FleetDocument[]).map((d) => d.value), prune: opts.prune ?? false };
  }
  if (opts.source) body.source = opts.source;
  let applied: Applied;
  try {
    applied = await api.call<Applied>('POST', '/v1/apply', body);
  } catch (err) {
    if (err instanceof ApiCallError && err.code === 'stale_plan') {
      const why = (err.details ?? []).map((d) => `  ${d.message}`).join('\n');
      console.error(`wrtfleet: the saved plan is stale, nothing was applied; plan again.\n${why}`);
      return 1;
    }
    return report(ctx, placed(err, documents));
  }
  if (opts.json) console.log(JSON.stringify(applied, null, 2));
  else if (applied.plan.changes === 0) console.log('No changes: the fleet matches the files.');
  else {
    console.log(planText(applied.plan).replace(/^Plan: /m, 'Applied: '));
    for (const r of applied.rollouts)
      console.log(
        `Rollout ${r.id} started for ${r.kind} ${r.name}: ${r.routers} routers (wrtfleet rollouts watch ${r.id})`,
      );
  }
  return 0;
}

export async function fleetExport(ctx: CliContext): Promise<number> {
  const dir = ctx.opts.output;
  if (!dir) throw new UsageError('give the directory to write with -o DIR');
  const { documents } = await ctx.api.get<Exported>('/v1/export');
  const schemaUrl = `${ctx.api.baseUrl}/v1/intent/schema`;
  const written: string[] = [];
  for (const d of documents) {
    const file = path.join(KIND_DIRS[d.kind] ?? d.kind, `${d.metadata.name}.yaml`);
    await mkdir(path.join(dir, path.dirname(file)), { recursive: true });
    await writeFile(path.join(dir, file), `# yaml-language-server: $schema=${schemaUrl}\n${stringify(d)}`);
    written.push(file);
  }
  if (ctx.opts.json) console.log(JSON.stringify({ directory: dir, files: written }, null, 2));
  else console.log(`Wrote ${written.length} documents to ${dir}: wrtfleet plan -f ${dir} shows what they manage.`);
  return 0;
}
