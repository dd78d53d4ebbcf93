import type { PrismaClient } from '../../prisma/generated/client/client.js';

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

  async list(filter: RouterFilter, page: PageRequest): Promise<{ items: RouterSummary[]; nextCursor: string | null }> {
    const after = page.cursor ? decodeCursor(page.cursor) : undefined;
    const rows = (await this.db.router.findMany({
      where: {
        ...(filter.soc ? { soc: { equals: filter.soc, mode: 'insensitive' as const } } : {}),
        ...(filter.status ? { status: filter.status } : {}),
        ...(after
          ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
          : {}),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.limit + 1,
      select: summarySelect,
    })) as SummaryRow[];
    const more = rows.length > page.limit;
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    return { items: items.map(summaryView), nextCursor: more && last ? encodeCursor(last.createdAt, last.id) : null };
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
