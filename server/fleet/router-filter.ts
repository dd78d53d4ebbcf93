import { ApplyStatus, ConnectionStatus, Placement } from '../../prisma/generated/client/enums.js';
import { prismaEnumValues } from '../storage/prisma-enums.js';
import { abilityConditions, type AbilityFilter } from './router-abilities.js';
import type { SqlParams } from './sql-params.js';

/**
 * The fleet table's filter, shared by the listing, its counts, bulk actions "on all that match"
 * and the id resolution the console uses to start a command or rollout on such a selection.
 * Every value becomes a bound parameter; nothing the caller sends is spliced into the SQL.
 */
/** A router's connection status: the one list the API schemas, filters, sorts and metrics use. */
export type { ConnectionStatus };
export const CONNECTION_STATUSES = prismaEnumValues(ConnectionStatus);
export const PLACEMENTS = prismaEnumValues(Placement);
/** An apply result's status, as the agent reported it (pending: sent, no answer yet). */
export const APPLY_STATUSES = prismaEnumValues(ApplyStatus);
/** Applied vs desired revision: pending has a desired revision it has not applied yet. */
export const REVISION_STATES = ['in_sync', 'pending'] as const;
/** The last drift report: found differences, found none, or none was ever reported. */
export const DRIFT_STATES = ['drifted', 'clean', 'unreported'] as const;
/** The newest apply result's status, or none before the first. */
export const APPLY_RESULTS = ['applied', 'failed', 'rolled_back', 'pending', 'none'] as const;
/**
 * Decommissioned routers are out of the live fleet: left out unless asked for (`include` them
 * with the rest, or `only` them). `exclude` is the default said out loud.
 */
export const DECOMMISSIONED = ['exclude', 'include', 'only'] as const;

export interface RouterFilter extends AbilityFilter {
  status?: ConnectionStatus;
  soc?: string;
  model?: string;
  /** OpenWrt release: exact, or a prefix of dot-separated parts ("23.05" matches 23.05.5). */
  release?: string;
  placement?: (typeof PLACEMENTS)[number];
  revisionState?: (typeof REVISION_STATES)[number];
  drift?: (typeof DRIFT_STATES)[number];
  applyResult?: (typeof APPLY_RESULTS)[number];
  /** Every tag must be present. */
  tags?: string[];
  /** Case-insensitive substring of the name. */
  q?: string;
  decommissioned?: (typeof DECOMMISSIONED)[number];
}

/** `%`, `_` and the escape character itself match literally in a LIKE pattern. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The SQL conditions of a filter over `"Router" r`, ANDed by the caller. */
export function filterConditions(filter: RouterFilter, sql: SqlParams): string[] {
  const c: string[] = [];
  if (filter.status) c.push(`r.status = CAST(${sql.param(filter.status)} AS "ConnectionStatus")`);
  if (filter.soc) c.push(`lower(r.soc) = lower(${sql.param(filter.soc)})`);
  if (filter.model) c.push(`lower(r.model) = lower(${sql.param(filter.model)})`);
  if (filter.release) {
    const release = sql.param(filter.release);
    c.push(
      `(r."openwrtRelease" = ${release} OR r."openwrtRelease" LIKE ${sql.param(`${likeLiteral(filter.release)}.%`)})`,
    );
  }
  if (filter.placement) c.push(`r.placement = CAST(${sql.param(filter.placement)} AS "Placement")`);
  if (filter.revisionState === 'pending')
    c.push(`(r."desiredRevisionId" IS NOT NULL AND r."appliedRevisionId" IS DISTINCT FROM r."desiredRevisionId")`);
  if (filter.revisionState === 'in_sync')
    c.push(`(r."desiredRevisionId" IS NULL OR r."appliedRevisionId" = r."desiredRevisionId")`);
  if (filter.drift === 'drifted') c.push(`r.drifted IS TRUE`);
  if (filter.drift === 'clean') c.push(`r.drifted IS FALSE`);
  if (filter.drift === 'unreported') c.push(`r.drifted IS NULL`);
  if (filter.applyResult === 'none') c.push(`r."lastApplyStatus" IS NULL`);
  else if (filter.applyResult) c.push(`r."lastApplyStatus" = CAST(${sql.param(filter.applyResult)} AS "ApplyStatus")`);
  if (filter.tags?.length) c.push(`r.tags @> CAST(${sql.param(filter.tags)} AS text[])`);
  if (filter.q) c.push(`r.name ILIKE ${sql.param(`%${likeLiteral(filter.q)}%`)}`);
  c.push(...abilityConditions(filter, sql));
  const decommissioned = filter.decommissioned ?? 'exclude';
  if (decommissioned === 'exclude') c.push(`r."decommissionedAt" IS NULL`);
  if (decommissioned === 'only') c.push(`r."decommissionedAt" IS NOT NULL`);
  return c;
}

/** Whether the filter names no criterion at all (then "all that match" is the whole live fleet). */
export function isEmptyFilter(filter: RouterFilter): boolean {
  return Object.entries(filter).every(
    ([k, v]) => v === undefined || (Array.isArray(v) && v.length === 0) || (k === 'decommissioned' && v === 'exclude'),
  );
}
