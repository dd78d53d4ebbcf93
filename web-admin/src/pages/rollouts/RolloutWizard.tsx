import { useState, type FormEvent } from 'react';
import { API_ENUMS } from '../../api/api-enums.generated.js';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useNavigate } from '../../app/navigation.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { useSignedIn } from '../../app/session.js';
import { checkFirmware, defaultFirmwareFields, type FirmwareFields } from './firmware-fields.js';
import { FirmwareChoice, useFirmwareChoice } from './FirmwareChoice.js';
import {
  DEFAULT_PROFILE_FIELDS,
  ProfileChoice,
  ProfilePlanCount,
  useProfileChoice,
  type ProfileFields,
} from './ProfileChoice.js';
import { SelectorInputs } from './SelectorInputs.js';
import { selectorFromFields, type SelectorFields } from './selector-fields.js';
import { StrategyFieldset } from './StrategyFieldset.js';
import { batchCount, checkStrategy, DEFAULT_STRATEGY_FIELDS, type StrategyFields } from './strategy-fields.js';

type RolloutRequest = ApiPaths['/v1/rollouts']['post']['requestBody']['content']['application/json'];
type RolloutKind = (typeof API_ENUMS.RolloutKind)[number];

const KIND_LABELS: Record<RolloutKind, string> = {
  profile: 'Profile settings',
  firmware: 'Firmware upgrade',
};

/**
 * Starts a rollout of a profile revision or of a firmware image. A profile: its revision, the
 * routers (with a live count of how many match and what the plan preview says of them, with the
 * choice to leave the refused ones out). An image: keep configuration, allow downgrade, a
 * maintenance window, and how many routers of the fleet it fits with those options. Then canary,
 * batch size, failure threshold, soak and promote, start time; POST /v1/rollouts and on to its
 * live progress.
 */
export function RolloutWizard({
  initialSelector,
  initialImage = null,
  onCancel,
}: {
  initialSelector: SelectorFields;
  /** An image's SHA-256 (the Firmware page's "Roll out"): the form starts on it. */
  initialImage?: string | null;
  onCancel(): void;
}) {
  const { api } = useSignedIn();
  const navigate = useNavigate();
  const [kind, setKind] = useState<RolloutKind>(initialImage ? 'firmware' : 'profile');
  const [profileFields, setProfileFields] = useState<ProfileFields>(DEFAULT_PROFILE_FIELDS);
  const [firmwareFields, setFirmwareFields] = useState<FirmwareFields>(() => defaultFirmwareFields(initialImage ?? ''));
  const [fields, setFields] = useState(initialSelector);
  const [strategyFields, setStrategyFields] = useState<StrategyFields>(DEFAULT_STRATEGY_FIELDS);
  const [tried, setTried] = useState(false);
  const selector = selectorFromFields(fields);
  const strategy = checkStrategy(strategyFields, new Date());
  const profile = useProfileChoice(profileFields, selector);
  const firmware = useFirmwareChoice(firmwareFields);
  const firmwareCheck = checkFirmware(firmwareFields);

  // The rollout shows in the list at once; its page follows it live.
  const start = useApiMutation((body: RolloutRequest) => unwrap(api.POST('/v1/rollouts', { body })), {
    invalidates: [queryKeys.rolloutList, queryKeys.firmware],
    onSuccess: (rollout) => navigate(`/rollouts/${encodeURIComponent(rollout.id)}`),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (!selector.ok || !strategy.ok) return;
    const common = {
      selector: selector.selector as never,
      strategy: strategy.strategy,
      ...(strategy.startAt ? { startAt: strategy.startAt } : {}),
    };
    if (kind === 'firmware') {
      if (!firmwareCheck.ok) return;
      // The generated type makes every defaulted field required; the controller fills them in.
      start.run({ ...common, firmware: firmwareCheck.firmware as RolloutRequest['firmware'] });
      return;
    }
    if (!profileFields.profile || profile.revision === null) return;
    start.run({
      ...common,
      profile: profileFields.profile,
      revision: profile.revision,
      ...(profile.refused > 0 && profileFields.skipRefused ? { skipRefused: true } : {}),
    });
  };

  const setStrategy = (patch: Partial<StrategyFields>) => setStrategyFields((now) => ({ ...now, ...patch }));
  const setProfile = (patch: Partial<ProfileFields>) => setProfileFields((now) => ({ ...now, ...patch }));
  const setFirmware = (patch: Partial<FirmwareFields>) => {
    setFirmwareFields((now) => ({ ...now, ...patch }));
    start.reset();
  };
  const { matched, included } = profile;
  const nothing = kind === 'firmware' ? firmware.image !== null && firmware.image.fit.fits === 0 : included === 0;

  return (
    <form className="wf-panel wf-form" onSubmit={submit} noValidate aria-labelledby="wizard-title">
      <h2 id="wizard-title">New rollout</h2>
      <fieldset className="wf-inline-fields wf-kind-choice">
        <legend>Roll out</legend>
        {API_ENUMS.RolloutKind.map((k) => (
          <label key={k} className="wf-check">
            <input type="radio" name="rollout-kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
            {KIND_LABELS[k]}
          </label>
        ))}
      </fieldset>
      {kind === 'profile' ? (
        <ProfileChoice fields={profileFields} state={profile} tried={tried} onChange={setProfile} />
      ) : (
        <FirmwareChoice
          fields={firmwareFields}
          state={firmware}
          check={firmwareCheck}
          tried={tried}
          onChange={setFirmware}
        />
      )}
      <SelectorInputs
        fields={fields}
        onChange={setFields}
        check={tried || selector.ok ? selector : { ok: true, selector: {} }}
      />
      {kind === 'profile' ? (
        <ProfilePlanCount fields={profileFields} state={profile} selector={selector} onChange={setProfile} />
      ) : null}
      <StrategyFieldset fields={strategyFields} check={strategy} onChange={setStrategy} />
      {kind === 'profile' && included !== null && included > 0 && strategy.ok ? (
        <p className="wf-muted">
          {included} routers in {batchCount(included, strategy.strategy)} batches
          {strategy.strategy.canary > 0
            ? `, the first a canary of ${Math.min(strategy.strategy.canary, included)}`
            : ''}
          .
        </p>
      ) : null}
      {kind === 'profile' && included === 0 && matched !== null && matched > 0 ? (
        <p className="wf-notice wf-notice--warn">The plan refuses every matching router: nothing to roll out.</p>
      ) : null}
      {start.failure ? <ErrorNotice failure={start.failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary" disabled={start.pending || nothing}>
          Start rollout
        </button>
        <button type="button" className="wf-button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
