import { Prisma, type PrismaClient } from '../../prisma/generated/client/client.js';

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

export class InvalidCursor extends Error {}

/** Keyset cursor over (createdAt, id): stable under inserts, O(limit) per page at any depth. */
function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const createdAt = new Date(at);
    if (typeof id !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error('shape');
    return { createdAt, id };
  } catch {
    throw new InvalidCursor('cursor is not one this API returned');
  }
}

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
    appliedRevision: r.appliedRevision ? { profile: r.appliedRevision.profile.name, revision: r.appliedRevision.number } : null,
    decommissionedAt: r.decommissionedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export type RouterSummary = ReturnType<typeof summaryView>;

/** Read side of the fleet for the API: filtered, keyset-paginated listings and single routers. */
export class RouterDirectory {
  constructor(private readonly db: PrismaClient) {}

  /**
   * The hot path of the API (dashboards and scripts poll it), so it is one hand-written
   * query: Prisma's generated queries for the same page (with the applied-revision relation)
   * cost about three times as much here.
   */
  async list(filter: RouterFilter, page: PageRequest): Promise<{ items: RouterSummary[]; nextCursor: string | null }> {
    const after = page.cursor ? decodeCursor(page.cursor) : undefined;
    const conditions: Prisma.Sql[] = [];
    if (filter.soc) conditions.push(Prisma.sql`lower(r.soc) = lower(${filter.soc})`);
    if (filter.status) conditions.push(Prisma.sql`r.status = CAST(${filter.status} AS "ConnectionStatus")`);
    if (after) conditions.push(Prisma.sql`(r."createdAt", r.id) > (${after.createdAt}, ${after.id})`);
    const where = conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
    const rows = await this.db.$queryRaw<(Omit<SummaryRow, 'appliedRevision'> & { appliedNumber: number | null; appliedProfile: string | null })[]>`
      SELECT r.id, r.name, r.identity, r.status::text AS status, r."lastSeenAt", r."connectedAt", r."agentVersion",
             r.placement::text AS placement, r.soc, r.arch, r.endian, r.kernel, r."openwrtVersion", r."openwrtTarget",
             r.model, r.tags, r."createdAt", r."updatedAt", r."decommissionedAt",
             pr.number AS "appliedNumber", p.name AS "appliedProfile"
        FROM "Router" r
        LEFT JOIN "ProfileRevision" pr ON pr.id = r."appliedRevisionId"
        LEFT JOIN "Profile" p ON p.id = pr."profileId"
        ${where}
       ORDER BY r."createdAt", r.id
       LIMIT ${page.limit + 1}`;
    const more = rows.length > page.limit;
    const items = rows.slice(0, page.limit).map(({ appliedNumber, appliedProfile, ...r }) =>
      summaryView({ ...r, appliedRevision: appliedNumber !== null && appliedProfile !== null ? { number: appliedNumber, profile: { name: appliedProfile } } : null }),
    );
    const last = rows[Math.min(rows.length, page.limit) - 1];
    return { items, nextCursor: more && last ? encodeCursor(last.createdAt, last.id) : null };
  }

  async get(id: string) {
    const row = await this.db.router.findUnique({
      where: { id },
      select: { ...summarySelect, facts: true, capabilities: true, liveState: true },
    });
    if (!row) return null;
    const { facts, capabilities, liveState, ...summary } = row as SummaryRow & { facts: unknown; capabilities: unknown; liveState: unknown };
    return { ...summaryView(summary), facts: facts ?? null, capabilities: capabilities ?? null, liveState: liveState ?? null };
  }
}
