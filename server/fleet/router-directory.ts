import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { Database } from '../storage/database.js';
import { createHash } from 'node:crypto';
import { InvalidCursor } from '../storage/keyset-cursor.js';
import { ABILITY_ITEM_SQL, abilityView } from './router-abilities.js';
import { liveStateView } from './live-state-view.js';
import { filterConditions, type ConnectionStatus, type RouterFilter } from './router-filter.js';
import { SqlParams } from './sql-params.js';
import {
  afterCursor,
  decodeSortCursor,
  encodeSortCursor,
  orderBy,
  parseSort,
  sortValueText,
  type Sort,
} from './router-sort.js';

export type { ConnectionStatus, RouterFilter } from './router-filter.js';

export interface PageRequest {
  limit: number;
  /** Opaque cursor from a previous page's nextCursor (made for the same sort). */
  cursor?: string;
  sort?: Sort;
}

/** What the fleet table's counts show, over the same filter as the listing. */
export interface RouterCounts {
  total: number;
  online: number;
  offline: number;
  neverSeen: number;
  drifted: number;
  /** The newest apply result failed or was rolled back. */
  failed: number;
  /** A desired revision not applied yet. */
  pending: number;
}

/** The most routers one "all that match" selection resolves to (the selector's own bound). */
export const MAX_MATCHING_IDS = 10_000;

export { InvalidCursor };

const summarySelect = {
  id: true,
  name: true,
  identity: true,
  status: true,
  lastSeenAt: true,
  connectedAt: true,
  agentVersion: true,
  placement: true,
  soc: true,
  arch: true,
  endian: true,
  kernel: true,
  openwrtRelease: true,
  openwrtTarget: true,
  model: true,
  tags: true,
  createdAt: true,
  updatedAt: true,
  decommissionedAt: true,
  appliedRevision: { select: { number: true, profile: { select: { name: true } } } },
  desiredRevision: { select: { number: true, profile: { select: { name: true } } } },
  lastApplyStatus: true,
  drifted: true,
} as const;

type SummaryRow = {
  id: string;
  name: string;
  identity: string;
  status: ConnectionStatus;
  lastSeenAt: Date | null;
  connectedAt: Date | null;
  agentVersion: string | null;
  placement: string;
  soc: string | null;
  arch: string | null;
  endian: string | null;
  kernel: string | null;
  openwrtRelease: string | null;
  openwrtTarget: string | null;
  model: string | null;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
  decommissionedAt: Date | null;
  appliedRevision: { number: number; profile: { name: string } } | null;
  desiredRevision: { number: number; profile: { name: string } } | null;
  lastApplyStatus: 'pending' | 'applied' | 'failed' | 'rolled_back' | null;
  drifted: boolean | null;
};

/** A router as the listing shows it; `capabilities` and `liveState` only for abilityView's columns. */
function summaryView(r: SummaryRow, capabilities: unknown, liveState: unknown) {
  return {
    id: r.id,
    name: r.name,
    identity: r.identity,
    status: r.status,
    lastSeenAt: r.lastSeenAt?.toISOString() ?? null,
    connectedAt: r.connectedAt?.toISOString() ?? null,
    agentVersion: r.agentVersion,
    placement: r.placement,
    soc: r.soc,
    arch: r.arch,
    endian: r.endian,
    kernel: r.kernel,
    openwrt: r.openwrtRelease
      ? { release: r.openwrtRelease, target: r.openwrtTarget, version: r.openwrtRelease }
      : null,
    model: r.model,
    tags: r.tags,
    appliedRevision: r.appliedRevision
      ? { profile: r.appliedRevision.profile.name, revision: r.appliedRevision.number }
      : null,
    desiredRevision: r.desiredRevision
      ? { profile: r.desiredRevision.profile.name, revision: r.desiredRevision.number }
      : null,
    lastApplyStatus: r.lastApplyStatus,
    drifted: r.drifted,
    ...abilityView(capabilities, liveState),
    decommissionedAt: r.decommissionedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export type RouterSummary = ReturnType<typeof summaryView>;

/** Column r.<name> as Date.prototype.toISOString() writes it (UTC, milliseconds, "Z"), or NULL. */
function isoUtc(column: string): string {
  return `to_char(r."${column}" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "${column}"`;
}

/**
 * The Router columns a page shows, picked (and the page cut to its limit) before the joins: a
 * filter that matches thousands then joins only the page's rows, and the fact sheets stay out.
 */
const PAGE_COLUMNS = [
  'id',
  'name',
  '"nameKey"',
  'identity',
  'status',
  '"lastSeenAt"',
  '"connectedAt"',
  '"agentVersion"',
  'placement',
  'soc',
  'arch',
  'endian',
  'kernel',
  '"openwrtRelease"',
  '"openwrtTarget"',
  'model',
  'tags',
  '"appliedRevisionId"',
  '"desiredRevisionId"',
  '"lastApplyStatus"',
  'drifted',
  'capabilities',
  '"liveState"',
  '"decommissionedAt"',
  '"createdAt"',
  '"updatedAt"',
]
  .map((c) => `r.${c}`)
  .join(', ');

/** Read side of the fleet for the API: filtered, keyset-paginated listings and single routers. */
export class RouterDirectory {
  private readonly db: PrismaClient;

  constructor(private readonly database: Database) {
    this.db = database.prisma;
  }

  /**
   * The hot path of the API (dashboards and scripts poll it). PostgreSQL writes each item's
   * JSON (to_jsonb over the columns of summaryView's shape, less `sk`, the sort value the next
   * cursor carries; a test holds the two equal)
   * and the server only joins the rows, since mapping and serialising them in JavaScript is work
   * on the controller's one event loop. The query goes through the driver as a prepared
   * statement, since planning it cost PostgreSQL more than running it. Why both: measured in
   * docs/BENCHMARKS.md#server-api. The page is cut from Router alone, then joined to its
   * revisions (see PAGE_COLUMNS). Returns the response body as text.
   */
  async listJson(filter: RouterFilter, page: PageRequest): Promise<string> {
    const sort = parseSort(page.sort);
    const after = page.cursor ? decodeSortCursor(page.cursor, sort) : undefined;
    const sql = new SqlParams();
    const conditions = filterConditions(filter, sql);
    if (after) conditions.push(afterCursor(sort, after, sql));
    const text = `SELECT (to_jsonb(i) - 'sk')::text AS item, i.sk, i.id FROM (
         SELECT r.id, r.name, r.identity, r.status, ${isoUtc('lastSeenAt')}, ${isoUtc('connectedAt')},
                r."agentVersion", r.placement, r.soc, r.arch, r.endian, r.kernel,
                CASE WHEN coalesce(r."openwrtRelease", '') = '' THEN NULL
                     ELSE json_build_object('release', r."openwrtRelease", 'target', r."openwrtTarget",
                                       'version', r."openwrtRelease") END AS openwrt,
                r.model, coalesce(r.tags, '{}') AS tags,
                CASE WHEN pr.number IS NULL OR p.name IS NULL THEN NULL
                     ELSE json_build_object('profile', p.name, 'revision', pr.number) END AS "appliedRevision",
                CASE WHEN dr.number IS NULL OR dp.name IS NULL THEN NULL
                     ELSE json_build_object('profile', dp.name, 'revision', dr.number) END AS "desiredRevision",
                r."lastApplyStatus", r.drifted,
                ${ABILITY_ITEM_SQL},
                ${isoUtc('decommissionedAt')}, ${isoUtc('createdAt')}, ${isoUtc('updatedAt')},
                ${sortValueText(sort)} AS sk
           FROM (SELECT ${PAGE_COLUMNS} FROM "Router" r
                  ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
                  ORDER BY ${orderBy(sort)}
                  LIMIT ${sql.param(page.limit + 1)}) r
           LEFT JOIN "ProfileRevision" pr ON pr.id = r."appliedRevisionId"
           LEFT JOIN "Profile" p ON p.id = pr."profileId"
           LEFT JOIN "ProfileRevision" dr ON dr.id = r."desiredRevisionId"
           LEFT JOIN "Profile" dp ON dp.id = dr."profileId"
          ORDER BY ${orderBy(sort)}) i`;
    const rows = await this.database.queryRows<{ item: string; sk: string | null; id: string }>(
      text,
      sql.values,
      statementName('wf-router-list', text),
    );
    const more = rows.length > page.limit;
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    const nextCursor = more && last ? JSON.stringify(encodeSortCursor(sort.sort, last.sk, last.id)) : 'null';
    return `{"items":[${items.map((r) => r.item).join(',')}],"nextCursor":${nextCursor}}`;
  }

  /** The counts at the top of the fleet table, in one pass over the filtered routers. */
  async counts(filter: RouterFilter): Promise<RouterCounts> {
    const sql = new SqlParams();
    const conditions = filterConditions(filter, sql);
    const text = `SELECT count(*)::int AS total,
         count(*) FILTER (WHERE r.status = 'online')::int AS online,
         count(*) FILTER (WHERE r.status = 'offline')::int AS offline,
         count(*) FILTER (WHERE r.status = 'never_seen')::int AS "neverSeen",
         count(*) FILTER (WHERE r.drifted IS TRUE)::int AS drifted,
         count(*) FILTER (WHERE r."lastApplyStatus" IN ('failed', 'rolled_back'))::int AS failed,
         count(*) FILTER (WHERE r."desiredRevisionId" IS NOT NULL
                            AND r."appliedRevisionId" IS DISTINCT FROM r."desiredRevisionId")::int AS pending
       FROM "Router" r ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}`;
    const [row] = await this.database.queryRows<RouterCounts>(
      text,
      sql.values,
      statementName('wf-router-counts', text),
    );
    return row!;
  }

  /**
   * The ids of the routers that match, in the listing's default (name) order, at most `max`; `total` says how many
   * match, so a caller can refuse a selection larger than it may act on.
   */
  async matchingIds(filter: RouterFilter, max = MAX_MATCHING_IDS): Promise<{ ids: string[]; total: number }> {
    const sql = new SqlParams();
    const conditions = filterConditions(filter, sql);
    const text = `SELECT r.id, count(*) OVER ()::int AS total FROM "Router" r
       ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
       ORDER BY r."nameKey", r.id LIMIT ${sql.param(max)}`;
    const rows = await this.database.queryRows<{ id: string; total: number }>(
      text,
      sql.values,
      statementName('wf-router-ids', text),
    );
    return { ids: rows.map((r) => r.id), total: rows[0]?.total ?? 0 };
  }

  /**
   * Routers whose state (status, revisions, apply result, drift, tags) changed after `since`,
   * oldest change first, at most `limit`; read from the database, so a change made through any
   * replica shows. `at` is each change's instant as the database wrote it.
   */
  async changedSince(since: string, limit: number): Promise<{ id: string; at: string }[]> {
    return this.database.queryRows<{ id: string; at: string }>(
      `SELECT r.id, to_char(r."stateChangedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
         FROM "Router" r WHERE r."stateChangedAt" > CAST($1 AS timestamptz)
        ORDER BY r."stateChangedAt", r.id LIMIT $2`,
      [since, limit],
      'wf-router-changes',
    );
  }

  /** The database's clock, where a change feed starts (the replicas' clocks may differ). */
  async now(): Promise<string> {
    const [row] = await this.database.queryRows<{ now: string }>(
      `SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS now`,
      [],
      'wf-clock',
    );
    return row!.now;
  }

  async get(id: string) {
    const row = await this.db.router.findUnique({
      where: { id },
      select: { ...summarySelect, facts: true, capabilities: true, liveState: true, seriesKey: true },
    });
    if (!row) return null;
    const { facts, capabilities, liveState, seriesKey, ...summary } = row as SummaryRow & {
      facts: unknown;
      capabilities: unknown;
      liveState: object | null;
      seriesKey: number;
    };
    // The latest telemetry sample lives with the telemetry history (written in batches there).
    const telemetry = await this.db.telemetryBaseline.findUnique({
      where: { routerKey: seriesKey },
      select: { at: true, latest: true },
    });
    return {
      ...summaryView(summary, capabilities, liveState),
      facts: facts ?? null,
      capabilities: capabilities ?? null,
      liveState: liveStateView(liveState, telemetry, summary.connectedAt),
    };
  }
}

/** A prepared statement's name must stand for one SQL text: the text's hash names it. */
function statementName(prefix: string, text: string): string {
  return `${prefix}-${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}
