import { useEffect, useState, type FormEvent } from 'react';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiMutation, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useNavigate } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { SelectorInputs } from './SelectorInputs.js';
import { describeSelector, selectorFromFields, type SelectorFields } from './selector-fields.js';
import { batchCount, checkStrategy, DEFAULT_STRATEGY_FIELDS, type StrategyFields } from './strategy-fields.js';

/** How long typing settles before the matching routers are counted again. */
const COUNT_DEBOUNCE_MS = 300;

type RolloutRequest = ApiPaths['/v1/rollouts']['post']['requestBody']['content']['application/json'];

/** `value`, once it has stayed the same for `ms` (typing settled). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * Starts a rollout: profile and revision, the routers (with a live count of how many match and
 * what the plan preview says of them: changes, unchanged, refused, with the choice to leave the
 * refused ones out), canary, batch size, failure threshold, soak and promote, start time; then
 * POST /v1/rollouts and on to its live progress.
 */
export function RolloutWizard({ initialSelector, onCancel }: { initialSelector: SelectorFields; onCancel(): void }) {
  const { api } = useSignedIn();
  const navigate = useNavigate();
  const [profile, setProfile] = useState('');
  // The revision chosen; until one is (or when the profile has no such revision), its newest.
  const [chosenRevision, setRevision] = useState<number | null>(null);
  const [fields, setFields] = useState(initialSelector);
  const [strategyFields, setStrategyFields] = useState<StrategyFields>(DEFAULT_STRATEGY_FIELDS);
  // Leaving the refused routers out is the default: sent anyway, they fail and pause the rollout.
  const [skipRefused, setSkipRefused] = useState(true);
  const [tried, setTried] = useState(false);
  const profiles = useApiQuery([...queryKeys.profiles, 'list'], () =>
    unwrap(api.GET('/v1/profiles', { params: { query: { limit: 500 } } })),
  );
  const revisions = useApiQuery(
    queryKeys.profile(profile, 'revisions'),
    () =>
      unwrap(api.GET('/v1/profiles/{name}/revisions', { params: { path: { name: profile }, query: { limit: 500 } } })),
    { enabled: profile !== '' },
  );
  const selector = selectorFromFields(fields);
  const strategy = checkStrategy(strategyFields, new Date());
  const selectorKey = selector.ok ? JSON.stringify(selector.selector) : null;

  const revisionItems = revisions.data?.items ?? [];
  const revision =
    chosenRevision !== null && revisionItems.some((r) => r.revision === chosenRevision)
      ? chosenRevision
      : (revisionItems[0]?.revision ?? null);

  // How many routers match, and what the plan says of them, once typing has settled.
  const countKey = useSettled(
    profile && revision !== null && selectorKey ? { profile, revision, selectorKey } : null,
    COUNT_DEBOUNCE_MS,
  );
  const countQuery = useApiQuery(
    ['plan-count', countKey],
    () =>
      unwrap(
        api.POST('/v1/plan-preview', {
          body: {
            profile: countKey!.profile,
            revision: countKey!.revision,
            selector: JSON.parse(countKey!.selectorKey) as never,
            limit: 1,
          },
        }),
      ),
    { enabled: countKey !== null },
  );
  const count =
    !profile || revision === null || !selectorKey
      ? ({ status: 'idle' } as const)
      : countQuery.failure
        ? ({ status: 'failed', message: countQuery.failure.message } as const)
        : countQuery.data &&
            countKey?.selectorKey === selectorKey &&
            countKey.profile === profile &&
            countKey.revision === revision
          ? ({ status: 'counted', matched: countQuery.data.matched, summary: countQuery.data.summary } as const)
          : ({ status: 'counting' } as const);

  // The rollout shows in the list at once; its page follows it live.
  const start = useApiMutation((body: RolloutRequest) => unwrap(api.POST('/v1/rollouts', { body })), {
    invalidates: [queryKeys.rolloutList],
    onSuccess: (rollout) => navigate(`/rollouts/${encodeURIComponent(rollout.id)}`),
  });
  const busy = start.pending;
  const failure = start.failure;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (!profile || revision === null || !selector.ok || !strategy.ok) return;
    start.run({
      profile,
      revision,
      selector: selector.selector as never,
      strategy: strategy.strategy,
      ...(strategy.startAt ? { startAt: strategy.startAt } : {}),
      ...(refused > 0 && skipRefused ? { skipRefused: true } : {}),
    });
  };

  const strategyError = (k: keyof StrategyFields) => (!strategy.ok ? (strategy.errors[k] ?? null) : null);
  const setStrategy = (patch: Partial<StrategyFields>) => setStrategyFields((now) => ({ ...now, ...patch }));
  const matched = count.status === 'counted' ? count.matched : null;
  const refused = count.status === 'counted' ? count.summary.refused : 0;
  /** The routers the rollout would send the revision to. */
  const included = matched === null ? null : matched - (skipRefused ? refused : 0);

  return (
    <form className="wf-panel wf-form" onSubmit={submit} noValidate aria-labelledby="wizard-title">
      <h2 id="wizard-title">New rollout</h2>
      {profiles.failure ? <ErrorNotice failure={profiles.failure} onRetry={profiles.retry} /> : null}
      <div className="wf-inline-fields">
        <Field label="Profile" error={tried && !profile ? 'choose a profile' : null}>
          <select
            value={profile}
            onChange={(e) => {
              setProfile(e.target.value);
              setRevision(null);
            }}
          >
            <option value="">Choose…</option>
            {(profiles.data?.items ?? []).map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Revision">
          <select value={revision ?? ''} onChange={(e) => setRevision(Number(e.target.value))} disabled={!profile}>
            {(revisions.data?.items ?? []).map((r) => (
              <option key={r.revision} value={r.revision}>
                revision {r.revision}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <SelectorInputs
        fields={fields}
        onChange={setFields}
        check={tried || selector.ok ? selector : { ok: true, selector: {} }}
      />
      <p className="wf-match-count" role="status" aria-live="polite">
        {count.status === 'idle'
          ? profile
            ? 'Name the routers to count them.'
            : 'Choose a profile to count the matching routers.'
          : count.status === 'counting'
            ? 'Counting matching routers…'
            : count.status === 'failed'
              ? `Could not count: ${count.message}`
              : `${count.matched} routers match (${selector.ok ? describeSelector(selector.selector) : ''})`}
      </p>
      {count.status === 'counted' && count.matched > 0 ? (
        <>
          <ul className="wf-counts" aria-label="What the plan does on them">
            <li>
              <strong>{count.summary.changing}</strong> change
            </li>
            <li>
              <strong>{count.summary.unchanged}</strong> unchanged
            </li>
            <li className={refused > 0 ? 'wf-counts__refused' : undefined}>
              <strong>{refused}</strong> refused
            </li>
          </ul>
          {refused > 0 ? (
            <div className="wf-refused">
              <label className="wf-check">
                <input type="checkbox" checked={skipRefused} onChange={(e) => setSkipRefused(e.target.checked)} />
                Leave out the {refused} {refused === 1 ? 'router' : 'routers'} the plan refuses
              </label>
              <p className={skipRefused ? 'wf-muted' : 'wf-notice wf-notice--warn'}>
                {skipRefused
                  ? 'They are recorded as skipped with the reason, never sent the revision, and keep what they run.'
                  : `They will be sent the revision and fail; the rollout pauses on them. Preview the plan on the Profiles page for the reasons.`}
              </p>
            </div>
          ) : null}
        </>
      ) : null}
      <fieldset className="wf-selector">
        <legend>Strategy</legend>
        <div className="wf-selector__grid">
          <Field label="Canary size" hint="routers in the first batch; 0 for none" error={strategyError('canary')}>
            <input
              inputMode="numeric"
              value={strategyFields.canary}
              onChange={(e) => setStrategy({ canary: e.target.value })}
            />
          </Field>
          <Field label="Batch size" hint="routers per batch after the canary" error={strategyError('batchSize')}>
            <input
              inputMode="numeric"
              value={strategyFields.batchSize}
              onChange={(e) => setStrategy({ batchSize: e.target.value })}
            />
          </Field>
          <Field
            label="Failure threshold (%)"
            hint="pause when more fail; 0 pauses on the first"
            error={strategyError('failurePercent')}
          >
            <input
              inputMode="decimal"
              value={strategyFields.failurePercent}
              onChange={(e) => setStrategy({ failurePercent: e.target.value })}
            />
          </Field>
          <Field
            label="Soak time (s)"
            hint="wait after each batch, then check drift, applies, telemetry; 0 for none"
            error={strategyError('soakSeconds')}
          >
            <input
              inputMode="numeric"
              value={strategyFields.soakSeconds}
              onChange={(e) => setStrategy({ soakSeconds: e.target.value })}
            />
          </Field>
          <Field label="Promotion" hint="after the first batch and its checks">
            <select
              value={strategyFields.promote}
              onChange={(e) => setStrategy({ promote: e.target.value === 'manual' ? 'manual' : 'auto' })}
            >
              <option value="auto">automatic</option>
              <option value="manual">wait for a promote</option>
            </select>
          </Field>
          <Field label="Start time" hint="empty starts now" error={strategyError('startAt')}>
            <input
              type="datetime-local"
              step={1}
              value={strategyFields.startAt}
              onChange={(e) => setStrategy({ startAt: e.target.value })}
            />
          </Field>
        </div>
      </fieldset>
      {included !== null && included > 0 && strategy.ok ? (
        <p className="wf-muted">
          {included} routers in {batchCount(included, strategy.strategy)} batches
          {strategy.strategy.canary > 0
            ? `, the first a canary of ${Math.min(strategy.strategy.canary, included)}`
            : ''}
          .
        </p>
      ) : null}
      {included === 0 && matched !== null && matched > 0 ? (
        <p className="wf-notice wf-notice--warn">The plan refuses every matching router: nothing to roll out.</p>
      ) : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      <div className="wf-form__actions">
        <button type="submit" className="wf-button wf-button--primary" disabled={busy || included === 0}>
          Start rollout
        </button>
        <button type="button" className="wf-button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
