import { Type, type Static } from '@fastify/type-provider-typebox';
import {
  APPLY_RESULTS,
  CONNECTION_STATUSES,
  DECOMMISSIONED,
  DRIFT_STATES,
  PLACEMENTS,
  REVISION_STATES,
  type RouterFilter,
} from '../../../fleet/router-filter.js';
import { CAPABILITY_STATES, DATAPATH_MODES, OFFLOAD_MODES } from '../../../fleet/router-abilities.js';
import { ApiError } from '../../../http/api-error.js';
import { StringEnum } from '../../../http/shared-schemas.js';

const TAG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;
const MAX_TAGS = 16;

const capability = (what: string) =>
  Type.Optional(
    StringEnum(CAPABILITY_STATES, {
      title: 'CapabilityState',
      description:
        `${what}: yes (probed, or predicted where nothing was probed), probed (the probe found it), ` +
        'predicted (not probed yet), no (the probe, or unprobed the prediction, says not), unknown (never reported)',
    }),
  );

/** Tags as a query string or body gives them: each item may be a comma list, checked one by one below. */
const TagList = (options: { description: string; deprecated?: boolean }) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 1100 }), { maxItems: MAX_TAGS, ...options });

/**
 * The fleet table's filter, the same fields in a query string (GET /v1/routers, /counts, /ids,
 * /events) and in a bulk action's body. `tag` may repeat or be a comma list: every tag must
 * be present.
 */
export const routerFilterFields = {
  status: Type.Optional(StringEnum(CONNECTION_STATUSES, { title: 'ConnectionStatus' })),
  soc: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'SoC, e.g. MT7621 (case-insensitive)' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Model name (case-insensitive)' })),
  release: Type.Optional(
    Type.String({
      pattern: '^[0-9A-Za-z.-]{1,32}$',
      description: 'OpenWrt release or release prefix: "23.05" matches 23.05.x',
    }),
  ),
  placement: Type.Optional(StringEnum(PLACEMENTS, { title: 'Placement' })),
  revisionState: Type.Optional(
    StringEnum(REVISION_STATES, {
      title: 'RevisionState',
      description: 'pending: a desired revision differs from the applied one',
    }),
  ),
  drift: Type.Optional(
    StringEnum(DRIFT_STATES, { title: 'DriftState', description: 'What the last drift report found' }),
  ),
  applyResult: Type.Optional(
    StringEnum(APPLY_RESULTS, { title: 'ApplyResultFilter', description: 'Status of the newest apply result' }),
  ),
  tags: Type.Optional(
    TagList({ description: 'Tags the router must all carry; repeat the parameter or separate with commas' }),
  ),
  tag: Type.Optional(TagList({ deprecated: true, description: 'Old spelling of `tags`, accepted until 0.3' })),
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, description: 'Case-insensitive substring of the name' }),
  ),
  hardwareOffload: capability('Hardware flow offload'),
  softwareOffload: capability('Software flow offload'),
  ebpf: capability('eBPF (our TC programs load)'),
  tcx: capability('TCX attach (bpf_link)'),
  datapath: Type.Optional(
    StringEnum(DATAPATH_MODES, {
      title: 'DatapathMode',
      description: 'The datapath the router runs, as its agent last reported it',
    }),
  ),
  offload: Type.Optional(
    StringEnum(OFFLOAD_MODES, {
      title: 'OffloadMode',
      description: 'The flow offload the router runs, as its agent last reported it',
    }),
  ),
  decommissioned: Type.Optional(
    StringEnum(DECOMMISSIONED, {
      title: 'Decommissioned',
      description: 'Decommissioned routers are left out (exclude, the default); include them, or list only them',
    }),
  ),
};

export const RouterFilterQuery = Type.Object(routerFilterFields, { additionalProperties: false });
export type RouterFilterInput = Static<typeof RouterFilterQuery>;

/**
 * The filter from validated input; tags are split on commas and each checked, so a bad one
 * is a 400 naming `tags` (or `<where>/tags` in a body). `tag`, the old spelling, adds to them.
 */
export function routerFilterOf(input: RouterFilterInput, where: 'querystring' | 'body', prefix = ''): RouterFilter {
  const { tags: given, tag: old, ...rest } = input;
  const tags = [
    ...new Set([...(given ?? []), ...(old ?? [])].flatMap((t) => t.split(',')).map((t) => t.trim())),
  ].filter(Boolean);
  const field = given || !old ? 'tags' : 'tag';
  const path = `${prefix}/${field}`;
  const bad = tags.find((t) => t.length > 64 || !TAG_PATTERN.test(t));
  if (bad !== undefined)
    throw new ApiError(
      400,
      'invalid_request',
      `invalid ${where} parameter: ${field} ${JSON.stringify(bad)} is not a tag`,
      [{ path, in: where, message: 'must be tags of letters, digits and ._:/-' }],
    );
  if (tags.length > MAX_TAGS)
    throw new ApiError(400, 'invalid_request', `invalid ${where} parameter: at most ${MAX_TAGS} tags`, [
      { path, in: where, message: `at most ${MAX_TAGS} tags` },
    ]);
  return { ...rest, ...(tags.length ? { tags } : {}) };
}
