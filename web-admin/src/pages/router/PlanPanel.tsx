import { unwrap } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { planPreviewLines, type PlanTextInput } from '../../../../core/plan/plan-text.js';
import { Panel } from './Panel.js';

/**
 * The plan of the router's effective profile (its assignment, with overrides) as
 * `wrtfleet plan preview --router` prints it: every decision with its reason.
 */
export function PlanPanel({ id }: { id: string }) {
  const { api } = useSignedIn();
  const preview = useApiQuery(queryKeys.routerPart(id, 'plan'), () =>
    unwrap(api.GET('/v1/routers/{id}/plan', { params: { path: { id } } })),
  );
  const data = preview.data;
  return (
    <Panel title="Plan of the effective profile" wide>
      {preview.failure ? <ErrorNotice failure={preview.failure} onRetry={preview.retry} /> : null}
      {preview.loading && !data ? <Loading what="Resolving the plan" /> : null}
      {data ? (
        <>
          {data.effective ? (
            <p className="wf-muted">
              The same text as <code>wrtfleet plan preview --router {id}</code>; nothing is sent to the router.
            </p>
          ) : null}
          <pre className="wf-pre" aria-label="Plan preview" tabIndex={0}>
            {planPreviewLines({ ...data, plan: data.plan as PlanTextInput | null }).join('\n')}
          </pre>
        </>
      ) : null}
    </Panel>
  );
}
