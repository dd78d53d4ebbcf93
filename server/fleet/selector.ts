import { Type, type Static } from '@sinclair/typebox';
import type { Prisma } from '../../prisma/generated/client/client.js';

/**
 * Which routers an operation targets. Criteria combine with AND; values inside one
 * criterion with OR (soc: ["MT7621", "MT7986"] is either SoC). `tags` requires every tag.
 */
const ReleasePattern = Type.String({ pattern: '^[0-9A-Za-z.-]{1,32}$' });
const releaseList = { minItems: 1, maxItems: 64 };
const RELEASE_HELP = 'OpenWrt releases or release prefixes: "23.05" matches 23.05.x';

export const SelectorSchema = Type.Object(
  {
    ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 10_000,
        description: 'Router ids',
      }),
    ),
    soc: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 64,
        description: 'SoCs, e.g. MT7621',
      }),
    ),
    release: Type.Optional(Type.Array(ReleasePattern, { ...releaseList, description: RELEASE_HELP })),
    openwrt: Type.Optional(
      Type.Array(ReleasePattern, {
        ...releaseList,
        deprecated: true,
        description: `Old spelling of \`release\`, accepted until 0.3. ${RELEASE_HELP}`,
      }),
    ),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 32,
        description: 'Tags the router must all carry',
      }),
    ),
    all: Type.Optional(Type.Literal(true, { description: 'Every router (must be said explicitly)' })),
  },
  { additionalProperties: false },
);
export type Selector = Static<typeof SelectorSchema>;

export class InvalidSelector extends Error {}

/** The selector in today's spelling (`openwrt` became `release`): what is stored and shown. */
export function canonicalSelector(selector: Selector): Selector {
  const { openwrt, ...rest } = selector;
  if (openwrt === undefined) return selector;
  if (rest.release !== undefined) throw new InvalidSelector('give "release" or its old spelling "openwrt", not both');
  return { ...rest, release: openwrt };
}

/** The Prisma filter for a selector; decommissioned routers are never targeted. */
export function selectorWhere(given: Selector): Prisma.RouterWhereInput {
  const selector = canonicalSelector(given);
  const criteria = (['ids', 'soc', 'release', 'tags'] as const).filter((k) => selector[k] !== undefined);
  if (criteria.length === 0 && !selector.all) {
    throw new InvalidSelector(
      'the selector names no criterion: give ids, soc, release or tags, or "all": true to target every router',
    );
  }
  if (selector.all && criteria.length > 0) {
    throw new InvalidSelector('"all": true cannot be combined with other criteria');
  }
  const and: Prisma.RouterWhereInput[] = [{ decommissionedAt: null }];
  if (selector.ids) and.push({ id: { in: selector.ids } });
  if (selector.soc)
    and.push({ OR: selector.soc.map((soc) => ({ soc: { equals: soc, mode: 'insensitive' as const } })) });
  if (selector.release) {
    and.push({
      OR: selector.release.map((v) => ({ OR: [{ openwrtRelease: v }, { openwrtRelease: { startsWith: `${v}.` } }] })),
    });
  }
  if (selector.tags) and.push({ tags: { hasEvery: selector.tags } });
  return { AND: and };
}
