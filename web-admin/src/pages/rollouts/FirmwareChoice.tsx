import { unwrap } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { configResetLabel, fitLabel, releaseLabel } from '../firmware/firmware-format.js';
import type { FirmwareCheck, FirmwareFields } from './firmware-fields.js';

/**
 * The firmware images, each with its fit judged with the options chosen (the same query, and
 * cache, as the Firmware page's list), and the one chosen.
 */
export function useFirmwareChoice(fields: FirmwareFields) {
  const { api } = useSignedIn();
  const options = { keepConfig: fields.keepConfig, allowDowngrade: fields.allowDowngrade };
  const images = useApiQuery(
    queryKeys.firmwareImages(options),
    () => unwrap(api.GET('/v1/firmware/images', { params: { query: options } })),
    { keepPrevious: true },
  );
  const image = images.data?.items.find((i) => i.sha256 === fields.image) ?? null;
  return { images, image };
}

export type FirmwareChoiceState = ReturnType<typeof useFirmwareChoice>;

/** Image, keep configuration, allow downgrade, maintenance window. */
export function FirmwareChoice({
  fields,
  state,
  check,
  tried,
  onChange,
}: {
  fields: FirmwareFields;
  state: FirmwareChoiceState;
  check: FirmwareCheck;
  tried: boolean;
  onChange(patch: Partial<FirmwareFields>): void;
}) {
  const { images, image } = state;
  const error = (k: keyof FirmwareFields) => (!check.ok ? (check.errors[k] ?? null) : null);
  const items = images.data?.items ?? [];
  return (
    <>
      {images.failure ? <ErrorNotice failure={images.failure} onRetry={images.retry} /> : null}
      <Field
        label="Firmware image"
        error={tried ? error('image') : null}
        hint={items.length === 0 && !images.loading ? 'no image yet: upload one on the Firmware page' : undefined}
      >
        <select value={fields.image} onChange={(e) => onChange({ image: e.target.value })}>
          <option value="">Choose…</option>
          {items.map((i) => (
            <option key={i.sha256} value={i.sha256}>
              {releaseLabel(i.release, i.revision)} · {i.target ?? 'any target'} · {i.fileName}
            </option>
          ))}
        </select>
      </Field>
      <fieldset className="wf-selector wf-upgrade-options">
        <legend>Upgrade</legend>
        <label className="wf-check">
          <input
            type="checkbox"
            checked={fields.keepConfig}
            onChange={(e) => onChange({ keepConfig: e.target.checked })}
          />
          Keep the configuration
        </label>
        <p className={fields.keepConfig ? 'wf-muted' : 'wf-notice wf-notice--warn'}>
          {fields.keepConfig
            ? 'sysupgrade keeps /etc/config and the agent with its credentials.'
            : 'Off: sysupgrade -n wipes the configuration. The agent and its credentials are gone with it: each router must be onboarded again (agent installed, enrolled) before it reports back.'}
        </p>
        <label className="wf-check">
          <input
            type="checkbox"
            checked={fields.allowDowngrade}
            onChange={(e) => onChange({ allowDowngrade: e.target.checked })}
          />
          Allow a downgrade (an image older than the release a router runs)
        </label>
        <label className="wf-check">
          <input type="checkbox" checked={fields.windowOn} onChange={(e) => onChange({ windowOn: e.target.checked })} />
          Only inside a maintenance window
        </label>
        {fields.windowOn ? (
          <div className="wf-inline-fields">
            <Field label="Window opens" hint="HH:MM" error={error('windowStart')}>
              <input
                type="time"
                value={fields.windowStart}
                onChange={(e) => onChange({ windowStart: e.target.value })}
              />
            </Field>
            <Field label="Window closes" hint="before it opens: spans midnight" error={error('windowEnd')}>
              <input type="time" value={fields.windowEnd} onChange={(e) => onChange({ windowEnd: e.target.value })} />
            </Field>
            <Field label="Time zone" hint="IANA, e.g. Europe/Paris" error={error('timeZone')}>
              <input value={fields.timeZone} onChange={(e) => onChange({ timeZone: e.target.value })} />
            </Field>
          </div>
        ) : null}
      </fieldset>
      {image ? (
        <div className="wf-fit-summary" role="status" aria-live="polite">
          <p className="wf-match-count">
            Fleet-wide, this image {fitLabel(image.fit)} with these options
            {configResetLabel(image.fit) ? ` (${configResetLabel(image.fit)})` : ''}.
          </p>
          <p className="wf-muted">
            How many of the routers the selector names it fits is not counted here: the routers it does not fit are left
            out when the rollout is created (skipped, with the reason).{' '}
            {image.fit.refusals.length > 0 ? (
              <>
                Fleet-wide, not fitting:{' '}
                {image.fit.refusals.map((r) => `${r.routers} ${r.code.replace(/_/g, ' ')}`).join(', ')} (
                <Link to="/firmware">details</Link>).
              </>
            ) : null}
          </p>
        </div>
      ) : null}
      {image && image.fit.fits === 0 ? (
        <p className="wf-notice wf-notice--warn">The image fits no router of the fleet: nothing to upgrade.</p>
      ) : null}
    </>
  );
}
