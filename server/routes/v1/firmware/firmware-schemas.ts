import { Type, type Static } from '@fastify/type-provider-typebox';
import { FirmwareRolloutSchema, SHA256_PATTERN, type FirmwareOptions } from '../../../firmware/firmware-options.js';
import { Nullable, Timestamp } from '../../../http/shared-schemas.js';

export const Sha256Param = Type.Object({ sha256: Type.String({ pattern: SHA256_PATTERN }) });
export { FirmwareRolloutSchema };

export function firmwareRequestOptions(body: Static<typeof FirmwareRolloutSchema>): Partial<FirmwareOptions> {
  const { image: _image, ...options } = body;
  return options;
}

export const FitSummarySchema = Type.Object(
  {
    routers: Type.Integer({ description: 'Routers judged (the live fleet)' }),
    fits: Type.Integer({ description: 'Routers the image fits' }),
    configReset: Type.Integer({ description: 'Of those, routers that need the configuration reset (sysupgrade -n)' }),
    refusals: Type.Array(
      Type.Object({
        code: Type.String({ description: 'board, target, downgrade, config_reset_needed, compat, unknown_board, ...' }),
        reason: Type.String({ description: 'The reason, as given for the first router of the group' }),
        routers: Type.Integer(),
        examples: Type.Array(Type.String(), { description: 'Names of up to five routers of the group' }),
      }),
      { description: 'Why the others do not fit, grouped by their first refusal, the largest group first' },
    ),
  },
  { description: 'Which routers the image fits, judged as sysupgrade would, with the options in the query' },
);

export const FirmwareImageSchema = Type.Object({
  sha256: Type.String(),
  fileName: Type.String(),
  sizeBytes: Type.Integer(),
  release: Type.String({ description: "The image's OpenWrt release (its metadata's version.version)" }),
  revision: Type.String(),
  target: Nullable(Type.String()),
  signed: Type.Boolean({ description: 'A signature block follows the metadata (it is not verified here)' }),
  metadata: Type.Object(
    {
      supportedDevices: Type.Array(Type.String()),
      newSupportedDevices: Nullable(Type.Array(Type.String())),
      version: Type.Object({
        dist: Type.String(),
        version: Type.String(),
        revision: Type.String(),
        target: Nullable(Type.String()),
        board: Nullable(Type.String()),
      }),
      compatVersion: Type.String(),
      compatMessage: Nullable(Type.String()),
    },
    { description: "The image's fwtool metadata block, as read at upload" },
  ),
  uploadedBy: Type.String(),
  createdAt: Timestamp,
  fit: FitSummarySchema,
});

export const FitQuery = Type.Object(
  {
    keepConfig: Type.Boolean({ default: true, description: 'Judge the fit as an upgrade keeping the configuration' }),
    allowDowngrade: Type.Boolean({ default: false, description: 'Judge an older image as fitting' }),
  },
  { additionalProperties: false },
);
