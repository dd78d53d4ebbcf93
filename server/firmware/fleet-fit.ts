import type { Prisma, PrismaClient } from '../../prisma/generated/client/client.js';
import { judgeFit, type FirmwareMetadata, type FitOptions, type FitVerdict } from '../../core/firmware/index.js';

/** A router as the fit check reads it: its columns and the parts of its facts sysupgrade checks. */
export interface RouterFitRow {
  id: string;
  name: string;
  verdict: FitVerdict;
}

/** How many routers an image fits, and why the others do not, grouped by reason. */
export interface FitSummary {
  routers: number;
  fits: number;
  /** Of those that fit, how many need the configuration reset (sysupgrade -n). */
  configReset: number;
  refusals: { code: string; reason: string; routers: number; examples: string[] }[];
}

const PAGE = 2_000;
const EXAMPLES = 5;

/**
 * Judges an image against routers, a page at a time (a fleet of 10,000 is never in memory at
 * once): board name in supported_devices, target, compat version, downgrade, as sysupgrade
 * would (core/firmware/image-fit.ts). The router's compat version is not among its facts yet:
 * sysupgrade's own default, "1.0", stands in.
 */
export async function* judgeRouters(
  db: PrismaClient,
  metadata: FirmwareMetadata,
  where: Prisma.RouterWhereInput,
  options: FitOptions,
): AsyncGenerator<RouterFitRow[]> {
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.router.findMany({
      where,
      orderBy: { id: 'asc' },
      take: PAGE,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      select: { id: true, name: true, openwrtRelease: true, openwrtTarget: true, facts: true },
    });
    if (rows.length === 0) return;
    yield rows.map((r) => {
      const facts = (r.facts ?? {}) as { boardName?: string | null; openwrt?: { revision?: string | null } | null };
      const verdict = judgeFit(
        metadata,
        {
          boardName: facts.boardName ?? null,
          target: r.openwrtTarget,
          release: r.openwrtRelease,
          revision: facts.openwrt?.revision ?? null,
          compatVersion: null,
        },
        options,
      );
      return { id: r.id, name: r.name, verdict };
    });
    cursor = rows[rows.length - 1]!.id;
    if (rows.length < PAGE) return;
  }
}

/** The live fleet (decommissioned routers left out) against an image. */
export async function fitSummary(
  db: PrismaClient,
  metadata: FirmwareMetadata,
  options: FitOptions,
  where: Prisma.RouterWhereInput = { decommissionedAt: null },
): Promise<FitSummary> {
  const summary: FitSummary = { routers: 0, fits: 0, configReset: 0, refusals: [] };
  const byCode = new Map<string, FitSummary['refusals'][number]>();
  for await (const page of judgeRouters(db, metadata, where, options))
    for (const r of page) {
      summary.routers += 1;
      if (r.verdict.fits) {
        summary.fits += 1;
        if (r.verdict.configReset) summary.configReset += 1;
        continue;
      }
      // A router is counted under its first refusal: the groups add up to the routers refused.
      const first = r.verdict.refusals[0]!;
      const group = byCode.get(first.code) ?? { code: first.code, reason: first.reason, routers: 0, examples: [] };
      group.routers += 1;
      if (group.examples.length < EXAMPLES) group.examples.push(r.name);
      byCode.set(first.code, group);
    }
  summary.refusals = [...byCode.values()].sort((a, b) => b.routers - a.routers);
  return summary;
}
