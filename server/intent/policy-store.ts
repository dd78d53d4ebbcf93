/**
 * RolloutPolicies, Assignments and FirmwarePolicies written one at a time through the API (the
 * console's and scripts' way, beside the files'). A write here leaves the files' mark as it was:
 * the next plan shows the change as drift from the files.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { AuditLog } from '../audit/audit-log.js';
import { jsonDiff } from '../audit/json-diff.js';
import { INTENT_API_VERSION, InvalidDocuments, validateDocuments, type IntentKind } from './intent-documents.js';
import { managedView, type Managed } from './managed-view.js';

export type PolicyKind = Exclude<IntentKind, 'Profile'>;
export const POLICY_KINDS: readonly PolicyKind[] = ['RolloutPolicy', 'Assignment', 'FirmwarePolicy'];

/** Each kind's path under /v1 and its audit noun. */
export const POLICY_PATHS: Record<PolicyKind, { path: string; noun: string }> = {
  RolloutPolicy: { path: 'rollout-policies', noun: 'rolloutPolicy' },
  Assignment: { path: 'assignments', noun: 'assignment' },
  FirmwarePolicy: { path: 'firmware-policies', noun: 'firmwarePolicy' },
};

export interface PolicyView {
  name: string;
  spec: Record<string, unknown>;
  version: number;
  managed: Managed | null;
  updatedAt: string;
}

/** The caller's version is not the stored one: someone wrote since they read it. */
export class StaleVersion extends Error {}

type Row = { id: string; name: string; spec: unknown; version: number; updatedAt: Date };
interface Table {
  findMany(a: object): Promise<Row[]>;
  findUnique(a: object): Promise<Row | null>;
  create(a: object): Promise<Row>;
  updateMany(a: object): Promise<{ count: number }>;
  deleteMany(a: object): Promise<{ count: number }>;
}

export class PolicyStore {
  constructor(
    private readonly db: PrismaClient,
    private readonly audit: AuditLog,
  ) {}

  private table(
    kind: PolicyKind,
    db: Pick<PrismaClient, 'rolloutPolicy' | 'fleetAssignment' | 'firmwarePolicy'> = this.db,
  ): Table {
    const tables = {
      RolloutPolicy: db.rolloutPolicy,
      Assignment: db.fleetAssignment,
      FirmwarePolicy: db.firmwarePolicy,
    };
    return tables[kind] as unknown as Table;
  }

  private async views(kind: PolicyKind, rows: Row[]): Promise<PolicyView[]> {
    const marks = await this.db.managedResource.findMany({ where: { kind, name: { in: rows.map((r) => r.name) } } });
    const byName = new Map(marks.map((m) => [m.name, m]));
    return rows.map((r) => {
      const m = byName.get(r.name);
      return {
        name: r.name,
        spec: r.spec as Record<string, unknown>,
        version: r.version,
        updatedAt: r.updatedAt.toISOString(),
        managed: m ? managedView(m) : null,
      };
    });
  }

  async list(kind: PolicyKind): Promise<PolicyView[]> {
    return this.views(kind, await this.table(kind).findMany({ orderBy: { name: 'asc' } }));
  }

  async get(kind: PolicyKind, name: string): Promise<PolicyView | null> {
    const row = await this.table(kind).findUnique({ where: { name } });
    return row ? (await this.views(kind, [row]))[0]! : null;
  }

  /**
   * Creates or changes one; `baseVersion` (the version the caller read) is needed to change one
   * that exists. A spec equal to the stored one writes nothing. Errors name `/spec/...`.
   */
  async save(
    kind: PolicyKind,
    name: string,
    spec: unknown,
    baseVersion: number | undefined,
    ctx: { actor: string; requestId?: string },
  ) {
    let stored: Record<string, unknown>;
    try {
      stored = validateDocuments([{ apiVersion: INTENT_API_VERSION, kind, metadata: { name }, spec }])[0]!.spec;
    } catch (err) {
      if (err instanceof InvalidDocuments)
        throw new InvalidDocuments(err.errors.map((e) => ({ ...e, path: e.path.replace(/^\/documents\/0/, '') })));
      throw err;
    }
    const existing = await this.table(kind).findUnique({ where: { name } });
    if (existing && canonicalJson(existing.spec) === canonicalJson(stored))
      return { changed: false, version: existing.version };
    if (existing && baseVersion !== existing.version)
      throw new StaleVersion(`${kind} ${name} is at version ${existing.version}: send it as baseVersion to change it`);
    const noun = POLICY_PATHS[kind].noun;
    const version = (existing?.version ?? 0) + 1;
    await this.audit.record(async (tx) => {
      const table = this.table(kind, tx);
      if (!existing) await table.create({ data: { name, spec: stored, version } });
      else {
        const { count } = await table.updateMany({
          where: { name, version: existing.version },
          data: { spec: stored, version },
        });
        if (count !== 1) throw new StaleVersion(`${kind} ${name} changed meanwhile`);
      }
      return {
        result: undefined,
        event: {
          actor: ctx.actor,
          action: `${noun}.${existing ? 'updated' : 'created'}`,
          targetType: noun,
          targetId: name,
          before: existing ? { version: existing.version, spec: existing.spec } : undefined,
          after: { version, spec: stored },
          diff: existing ? jsonDiff(existing.spec, stored) : undefined,
          requestId: ctx.requestId,
        },
      };
    });
    return { changed: true, version };
  }

  /** Removes one (and its files' mark): false when there was none. */
  async remove(kind: PolicyKind, name: string, ctx: { actor: string; requestId?: string }): Promise<boolean> {
    const existing = await this.table(kind).findUnique({ where: { name } });
    if (!existing) return false;
    const noun = POLICY_PATHS[kind].noun;
    await this.audit.record(async (tx) => {
      await this.table(kind, tx).deleteMany({ where: { name } });
      await tx.managedResource.deleteMany({ where: { kind, name } });
      return {
        result: undefined,
        event: {
          actor: ctx.actor,
          action: `${noun}.deleted`,
          targetType: noun,
          targetId: name,
          before: { version: existing.version, spec: existing.spec },
          requestId: ctx.requestId,
        },
      };
    });
    return true;
  }
}
