/** `wrtfleet firmware add|ls|show|rm`: OpenWrt sysupgrade images stored on the controller. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ApiCallError, type ApiClient } from '../api-client.js';
import type * as Api from '../api-client.js';
import { print, query, UsageError, unknownCommand, type CliContext, type CliOptions } from '../cli-context.js';
import { isFullSha256, keepConfigFromOpts, pickImage } from '../firmware-flags.js';
import { table } from '../output.js';

/** The fit options `firmware show` and `ls` judge with, as the API's query (its defaults when absent). */
function fitQuery(opts: CliOptions): string {
  const keepConfig = keepConfigFromOpts(opts);
  return query({
    keepConfig: keepConfig === undefined ? undefined : String(keepConfig),
    allowDowngrade: opts['allow-downgrade'] ? 'true' : undefined,
  });
}

/**
 * The image IMAGE names (see pickImage), judged with `fitQuery`. A whole SHA-256 is asked for
 * directly; anything else is looked up in the listing.
 */
export async function resolveImage(api: ApiClient, ref: string, fit = ''): Promise<Api.FirmwareImage> {
  if (isFullSha256(ref)) return api.get<Api.FirmwareImage>(`/v1/firmware/images/${ref.toLowerCase()}${fit}`);
  return pickImage((await api.get<Api.FirmwareImageList>(`/v1/firmware/images${fit}`)).items, ref);
}

/** "fits 4 of 6 routers" and, below it, each group of routers it does not fit and why. */
function fitText(image: Api.FirmwareImage, withExamples: boolean): string {
  const { fit } = image;
  const reset = fit.configReset ? ` (${fit.configReset} with the configuration reset)` : '';
  const lines = [`fits ${fit.fits} of ${fit.routers} routers${reset}`];
  for (const group of fit.refusals) {
    const examples = withExamples && group.examples.length ? `: ${group.examples.join(', ')}` : '';
    lines.push(`  ${group.routers} refused (${group.code})${examples}`, `    ${group.reason}`);
  }
  return lines.join('\n');
}

/** One line naming the image: SHA-256, file name, release and target. */
function imageLine(image: Api.FirmwareImage): string {
  return `${image.sha256}  ${image.fileName}  OpenWrt ${image.release} (${image.revision}) for ${image.target ?? 'an unnamed target'}`;
}

function showText(image: Api.FirmwareImage): string {
  const m = image.metadata;
  return [
    imageLine(image),
    `size ${image.sizeBytes} bytes, ${image.signed ? 'signed' : 'unsigned'}, uploaded by ${image.uploadedBy} at ${image.createdAt}`,
    `supported devices: ${m.supportedDevices.join(', ') || '(none)'}`,
    ...(m.newSupportedDevices ? [`new supported devices: ${m.newSupportedDevices.join(', ') || '(none)'}`] : []),
    `compat version ${m.compatVersion}${m.compatMessage ? `: ${m.compatMessage}` : ''}`,
    `build: ${m.version.dist} ${m.version.version} ${m.version.revision}, board ${m.version.board ?? '-'}`,
    fitText(image, true),
  ].join('\n');
}

async function addImage({ opts, args, api }: CliContext): Promise<number> {
  const file = args[0];
  if (!file) throw new UsageError('firmware add needs a FILE');
  let sizeBytes: number;
  try {
    sizeBytes = (await stat(file)).size;
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const fileName = opts.name ?? path.basename(file);
  let res: Response;
  try {
    res = await api.upload(`/v1/firmware/images${query({ fileName })}`, { stream: createReadStream(file), sizeBytes });
  } catch (err) {
    // A refused image: say why in a sentence (the code is details[0].message), exit 1.
    if (!(err instanceof ApiCallError) || (err.status !== 422 && err.status !== 413)) throw err;
    const code = err.details?.[0]?.message ?? err.code;
    if (opts.json) console.error(JSON.stringify({ error: err.code, status: err.status, code, message: err.message }));
    else console.error(`wrtfleet: ${fileName} refused (${code}): ${err.message}`);
    return 1;
  }
  const image = (await res.json()) as Api.FirmwareImage;
  print(
    opts,
    image,
    () => `${res.status === 201 ? 'stored' : 'already stored'}: ${imageLine(image)}\n${fitText(image, false)}`,
  );
  return 0;
}

/** The rollouts that have not ended and carry the image: why the controller will not remove it. */
async function rolloutsCarrying(api: ApiClient, sha256: string): Promise<Api.RolloutView[]> {
  const { items } = await api.get<{ items: Api.RolloutView[] }>('/v1/rollouts?limit=200');
  return items.filter((r) => r.firmware?.image === sha256 && r.state !== 'completed' && r.state !== 'cancelled');
}

async function removeImage({ opts, args, api }: CliContext): Promise<number> {
  if (!args[0]) throw new UsageError('firmware rm needs an IMAGE (SHA-256, prefix or file name)');
  const image = await resolveImage(api, args[0]);
  try {
    await api.raw('DELETE', `/v1/firmware/images/${image.sha256}`);
  } catch (err) {
    if (!(err instanceof ApiCallError) || err.status !== 409) throw err;
    const carrying = await rolloutsCarrying(api, image.sha256);
    if (opts.json)
      console.error(
        JSON.stringify({ error: err.code, status: 409, message: err.message, rollouts: carrying.map((r) => r.id) }),
      );
    else
      console.error(
        `wrtfleet: ${image.fileName} is still in use: ${err.message}\n` +
          (carrying.length
            ? `rollouts carrying it: ${carrying.map((r) => `${r.id} (${r.state})`).join(', ')}; ` +
              'wait for them to end or cancel them (wrtfleet rollouts cancel ID), then remove it'
            : 'a rollout that has not ended carries it; cancel it or wait for it to end, then remove it'),
      );
    return 1;
  }
  print(opts, { removed: image.sha256 }, () => `removed ${image.sha256} (${image.fileName})`);
  return 0;
}

export async function firmwareVerb(ctx: CliContext, command: string | undefined): Promise<number> {
  const { opts, args, api } = ctx;
  switch (command) {
    case 'add':
      return addImage(ctx);
    case 'ls': {
      const page = await api.get<Api.FirmwareImageList>(`/v1/firmware/images${fitQuery(opts)}`);
      print(opts, page, () =>
        table(
          page.items.map((i) => ({
            ...i,
            sha256: i.sha256.slice(0, 12),
            fits: `${i.fit.fits}/${i.fit.routers}`,
          })),
          ['sha256', 'fileName', 'release', 'revision', 'target', 'sizeBytes', 'fits', 'createdAt'],
        ),
      );
      return 0;
    }
    case 'show': {
      if (!args[0]) throw new UsageError('firmware show needs an IMAGE (SHA-256, prefix or file name)');
      const image = await resolveImage(api, args[0], fitQuery(opts));
      print(opts, image, () => showText(image));
      return 0;
    }
    case 'rm':
      return removeImage(ctx);
    default:
      throw unknownCommand('firmware', command);
  }
}
