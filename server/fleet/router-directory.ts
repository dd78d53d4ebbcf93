import type { PrismaClient } from '../../prisma/generated/client/client.js';
import type { Database } from '../storage/database.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../storage/keyset-cursor.js';

export type ConnectionStatus = 'online' | 'offline' | 'never_seen';

export interface RouterFilter {
  soc?: string;
  status?: ConnectionStatus;
}

export interface PageRequest {
  limit: number;
  /** Opaque cursor from a previous page's nextCursor. */
  cursor?: string;
}

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
  openwrtVersion: true,
  openwrtTarget: true,
  model: true,
  tags: true,
  createdAt: true,
  updatedAt: true,
  decommissionedAt: true,
  appliedRevision: { select: { number: true, profile: { select: { name: true } } } },
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
  openwrtVersion: string | null;
  openwrtTarget: string | null;
  model: string | null;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
  decommissionedAt: Date | null;
  appliedRevision: { number: number; profile: { name: string } } | null;
};

function summaryView(r: SummaryRow) {
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
    openwrt: r.openwrtVersion ? { version: r.openwrtVersion, target: r.openwrtTarget } : null,
    model: r.model,
    tags: r.tags,
    appliedRevision: r.appliedRevision
      ? { profile: r.appliedRevision.profile.name, revision: r.appliedRevision.number }
      : null,
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

/** Read side of the fleet for the API: filtered, keyset-paginated listings and single routers. */
export class RouterDirectory {
  private readonly db: PrismaClient;

  constructor(private readonly database: Database) {
    this.db = database.prisma;
  }

  /**
   * The hot path of the API (dashboards and scripts poll it). PostgreSQL writes each item's
   * JSON (row_to_json over the columns of summaryView's shape; a test holds the two equal)
   * and the server only joins the rows: mapping and serialising 100 rows in JavaScript cost
   * the controller's one event loop ~1.3 ms per page, Prisma's row conversion more. The query
   * goes through the driver as a prepared statement: planning this three-table query cost
   * PostgreSQL more than running it. Returns the response body as text.
   */
  async listJson(filter: RouterFilter, page: PageRequest): Promise<string> {
    const after = page.cursor ? decodeCursor(page.cursor) : undefined;
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    const conditions: string[] = [];
    if (filter.soc) conditions.push(`lower(r.soc) = lower(${param(filter.soc)})`);
    if (filter.status) conditions.push(`r.status = CAST(${param(filter.status)} AS "ConnectionStatus")`);
    if (after)
      conditions.push(
        `(r."createdAt", r.id) > (${param(after.createdAt.toISOString())}::timestamptz, ${param(after.id)})`,
      );
    const statement = `wf-router-list-${filter.soc ? 's' : ''}${filter.status ? 't' : ''}${after ? 'c' : ''}`;
    const rows = await this.database.queryRows<{ item: string; createdAt: string; id: string }>(
      `SELECT row_to_json(i)::text AS item, i."createdAt", i.id FROM (
         SELECT r.id, r.name, r.identity, r.status, ${isoUtc('lastSeenAt')}, ${isoUtc('connectedAt')},
                r."agentVersion", r.placement, r.soc, r.arch, r.endian, r.kernel,
                CASE WHEN coalesce(r."openwrtVersion", '') = '' THEN NULL
                     ELSE json_build_object('version', r."openwrtVersion", 'target', r."openwrtTarget") END AS openwrt,
                r.model, coalesce(r.tags, '{}') AS tags,
                CASE WHEN pr.number IS NULL OR p.name IS NULL THEN NULL
                     ELSE json_build_object('profile', p.name, 'revision', pr.number) END AS "appliedRevision",
                ${isoUtc('decommissionedAt')}, ${isoUtc('createdAt')}, ${isoUtc('updatedAt')}
           FROM "Router" r
           LEFT JOIN "ProfileRevision" pr ON pr.id = r."appliedRevisionId"
           LEFT JOIN "Profile" p ON p.id = pr."profileId"
           ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
          ORDER BY r."createdAt", r.id
          LIMIT ${param(page.limit + 1)}) i`,
      params,
      statement,
    );
    const more = rows.length > page.limit;
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    const nextCursor = more && last ? JSON.stringify(encodeCursor(new Date(last.createdAt), last.id)) : 'null';
    return `{"items":[${items.map((r) => r.item).join(',')}],"nextCursor":${nextCursor}}`;
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
      select: { latest: true },
    });
    return {
      ...summaryView(summary),
      facts: facts ?? null,
      capabilities: capabilities ?? null,
      liveState:
        liveState || telemetry ? { ...liveState, ...(telemetry ? { telemetry: telemetry.latest } : {}) } : null,
    };
  }
}
