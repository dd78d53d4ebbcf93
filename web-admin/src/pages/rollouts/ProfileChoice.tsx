import { useEffect, useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { describeSelector, type SelectorResult } from './selector-fields.js';

/** How long typing settles before the matching routers are counted again. */
const COUNT_DEBOUNCE_MS = 300;

/** `value`, once it has stayed the same for `ms` (typing settled). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export interface ProfileFields {
  profile: string;
  /** The revision chosen; until one is (or when the profile has no such revision), its newest. */
  revision: number | null;
  /** Leaving the refused routers out is the default: sent anyway, they fail and pause the rollout. */
  skipRefused: boolean;
}

export const DEFAULT_PROFILE_FIELDS: ProfileFields = { profile: '', revision: null, skipRefused: true };

export type PlanCount =
  | { status: 'idle' }
  | { status: 'counting' }
  | { status: 'failed'; message: string }
  | { status: 'counted'; matched: number; summary: { changing: number; unchanged: number; refused: number } };

/**
 * The profile half of the rollout form: its profiles and revisions, and how many routers the
 * selector matches with what the plan preview says of them, counted once typing has settled.
 */
export function useProfileChoice(fields: ProfileFields, selector: SelectorResult) {
  const { api } = useSignedIn();
  const { profile } = fields;
  const profiles = useApiQuery([...queryKeys.profiles, 'list'], () =>
    unwrap(api.GET('/v1/profiles', { params: { query: { limit: 500 } } })),
  );
  const revisions = useApiQuery(
    queryKeys.profile(profile, 'revisions'),
    () =>
      unwrap(api.GET('/v1/profiles/{name}/revisions', { params: { path: { name: profile }, query: { limit: 500 } } })),
    { enabled: profile !== '' },
  );
  const revisionItems = revisions.data?.items ?? [];
  const revision =
    fields.revision !== null && revisionItems.some((r) => r.revision === fields.revision)
      ? fields.revision
      : (revisionItems[0]?.revision ?? null);
  const selectorKey = selector.ok ? JSON.stringify(selector.selector) : null;
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
  const count: PlanCount =
    !profile || revision === null || !selectorKey
      ? { status: 'idle' }
      : countQuery.failure
        ? { status: 'failed', message: countQuery.failure.message }
        : countQuery.data &&
            countKey?.selectorKey === selectorKey &&
            countKey.profile === profile &&
            countKey.revision === revision
          ? { status: 'counted', matched: countQuery.data.matched, summary: countQuery.data.summary }
          : { status: 'counting' };
  const matched = count.status === 'counted' ? count.matched : null;
  const refused = count.status === 'counted' ? count.summary.refused : 0;
  /** The routers the rollout would send the revision to. */
  const included = matched === null ? null : matched - (fields.skipRefused ? refused : 0);
  return { profiles, revisions, revision, count, matched, refused, included };
}

export type ProfileChoiceState = ReturnType<typeof useProfileChoice>;

interface ChoiceProps {
  fields: ProfileFields;
  state: ProfileChoiceState;
  onChange(patch: Partial<ProfileFields>): void;
}

/** Profile and revision. */
export function ProfileChoice({ fields, state, tried, onChange }: ChoiceProps & { tried: boolean }) {
  const { profiles, revisions, revision } = state;
  return (
    <>
      {profiles.failure ? <ErrorNotice failure={profiles.failure} onRetry={profiles.retry} /> : null}
      <div className="wf-inline-fields">
        <Field label="Profile" error={tried && !fields.profile ? 'choose a profile' : null}>
          <select value={fields.profile} onChange={(e) => onChange({ profile: e.target.value, revision: null })}>
            <option value="">Choose…</option>
            {(profiles.data?.items ?? []).map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Revision">
          <select
            value={revision ?? ''}
            onChange={(e) => onChange({ revision: Number(e.target.value) })}
            disabled={!fields.profile}
          >
            {(revisions.data?.items ?? []).map((r) => (
              <option key={r.revision} value={r.revision}>
                revision {r.revision}
              </option>
            ))}
          </select>
        </Field>
      </div>
    </>
  );
}

/** How many routers match, what the plan does on them, and the choice to leave the refused ones out. */
export function ProfilePlanCount({ fields, state, selector, onChange }: ChoiceProps & { selector: SelectorResult }) {
  const { count, refused } = state;
  return (
    <>
      <p className="wf-match-count" role="status" aria-live="polite">
        {count.status === 'idle'
          ? fields.profile
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
                <input
                  type="checkbox"
                  checked={fields.skipRefused}
                  onChange={(e) => onChange({ skipRefused: e.target.checked })}
                />
                Leave out the {refused} {refused === 1 ? 'router' : 'routers'} the plan refuses
              </label>
              <p className={fields.skipRefused ? 'wf-muted' : 'wf-notice wf-notice--warn'}>
                {fields.skipRefused
                  ? 'They are recorded as skipped with the reason, never sent the revision, and keep what they run.'
                  : `They will be sent the revision and fail; the rollout pauses on them. Preview the plan on the Profiles page for the reasons.`}
              </p>
            </div>
          ) : null}
        </>
      ) : null}
    </>
  );
}
