import { useCallback, useState } from 'react';
import { useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/routes.js';
import { useSignedIn } from '../../app/session.js';
import { Page } from '../../components/Page.js';
import { InventoryForm } from './InventoryForm.js';
import { JobsTable, type StartedJob } from './JobsTable.js';
import { OneRouterForm } from './OneRouterForm.js';
import '../profiles/panels.css';
import './onboarding.css';

/** Onboarding: one router over SSH, or an inventory upload; every job with its live progress and cancel. */
export default function OnboardingPage(_props: PageProps) {
  const { can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const mode = params.get('mode') === 'inventory' ? 'inventory' : 'one';
  const [jobs, setJobs] = useState<StartedJob[]>([]);
  const add = useCallback((started: StartedJob[]) => setJobs((now) => [...started, ...now]), []);
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
                onClick={() => setParams(new URLSearchParams(m === 'one' ? {} : { mode: m }))}
              >
                {m === 'one' ? 'One router' : 'Inventory file'}
              </button>
            ))}
          </div>
          {mode === 'one' ? <OneRouterForm onStarted={(job) => add([job])} /> : <InventoryForm onStarted={add} />}
        </>
      ) : (
        <p className="wf-notice">Onboarding needs the write scope; your role can only read.</p>
      )}
      <JobsTable jobs={jobs} />
    </Page>
  );
}
