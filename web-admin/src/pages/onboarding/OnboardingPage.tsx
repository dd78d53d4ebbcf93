import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { Page } from '../../components/Page.js';
import { InventoryForm } from './InventoryForm.js';
import { JobsTable, type StartedJob } from './JobsTable.js';
import { OneRouterForm } from './OneRouterForm.js';
import type { OnboardingFields } from './onboarding-form.js';
import '../profiles/panels.css';
import './onboarding.css';

/** Past this many jobs the link would be too long: they are followed on this page only. */
const MAX_LINKED_JOBS = 100;

function jobIdsOf(param: string | null): string[] {
  if (!param) return [];
  return [...new Set(param.split(',').filter((id) => /^[A-Za-z0-9_-]{1,64}$/.test(id)))].slice(0, MAX_LINKED_JOBS);
}

/**
 * Onboarding: one router over SSH, or an inventory upload; every job with its live progress and
 * cancel, and a failed or cancelled one with Retry (the form again, filled with its target).
 */
export default function OnboardingPage(_props: PageProps) {
  const { can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const mode = params.get('mode') === 'inventory' ? 'inventory' : 'one';
  // Jobs started here, and those a link names (?jobs=id,id): a reload or a shared link follows them too.
  const [jobs, setJobs] = useState<StartedJob[]>(() =>
    jobIdsOf(params.get('jobs')).map((jobId) => ({ jobId, host: null, row: null })),
  );
  const add = useCallback((started: StartedJob[]) => setJobs((now) => [...started, ...now]), []);
  // The failed job being retried: the one-router form opens filled with its target.
  const [retrying, setRetrying] = useState<{ jobId: string; fields: OnboardingFields } | null>(null);
  const retry = useCallback(
    (jobId: string, fields: OnboardingFields) => {
      setRetrying({ jobId, fields });
      const query = new URLSearchParams(window.location.search);
      query.delete('mode');
      setParams(query);
    },
    [setParams],
  );
  const linked = jobs.length <= MAX_LINKED_JOBS ? jobs.map((j) => j.jobId).join(',') : '';
  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    if (linked) query.set('jobs', linked);
    else query.delete('jobs');
    setParams(query);
  }, [linked, setParams]);
  return (
    <Page title="Onboarding">
      {can('write') ? (
        <>
          <div className="wf-tabs" role="group" aria-label="What to onboard">
            {(['one', 'inventory'] as const).map((m) => (
              <button
                key={m}
                type="button"
                className={`wf-button${mode === m ? ' wf-button--primary' : ''}`}
                aria-pressed={mode === m}
                onClick={() => {
                  const query = new URLSearchParams(params);
                  if (m === 'one') query.delete('mode');
                  else query.set('mode', m);
                  setParams(query);
                }}
              >
                {m === 'one' ? 'One router' : 'Inventory file'}
              </button>
            ))}
          </div>
          {mode === 'one' ? (
            <OneRouterForm
              key={retrying?.jobId ?? 'new'}
              retrying={retrying}
              onStarted={(job) => {
                add([job]);
                setRetrying(null);
              }}
            />
          ) : (
            <InventoryForm onStarted={add} />
          )}
        </>
      ) : (
        <p className="wf-notice">Onboarding needs the write scope; your role can only read.</p>
      )}
      <JobsTable jobs={jobs} onRetry={can('write') ? retry : undefined} />
    </Page>
  );
}
