import { unwrap } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link } from '../../app/navigation.js';
import { pathFor } from '../../app/route-match.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Fact, Panel } from './Panel.js';

const named = (r: { profile: string; revision: number } | null | undefined) =>
  r ? `${r.profile}@${r.revision}` : null;

/** The API's revision state as a status colour (the words are the API's own). */
const STATE_TONE: Record<string, string> = {
  in_step: 'applied',
  held_after_rollback: 'rolled_back',
  on_its_way: 'pending',
  waiting_for_router: 'pending',
  failed: 'failed',
  nothing_to_run: 'pending',
  decommissioned: 'failed',
};

/** Applied and desired revision side by side: equal means the router runs what it should. */
export function RevisionsPanel({ id }: { id: string }) {
  const { api } = useSignedIn();
  const revisions = useApiQuery(queryKeys.routerPart(id, 'revisions'), () =>
    unwrap(api.GET('/v1/routers/{id}/revisions', { params: { path: { id } } })),
  );
  const data = revisions.data;
  return (
    <Panel title="Revisions">
      {revisions.failure ? <ErrorNotice failure={revisions.failure} onRetry={revisions.retry} /> : null}
      {revisions.loading && !data ? <Loading what="Loading revisions" /> : null}
      {data ? (
        <dl className="wf-facts">
          <Fact term="Applied">{named(data.applied) ?? <span className="wf-muted">none</span>}</Fact>
          <Fact term="Desired">
            {data.desired ? (
              <>
                {named(data.desired)}
                {data.desired.rolloutId ? (
                  <>
                    {' '}
                    (rollout{' '}
                    <Link to={pathFor('/rollouts/:id', { id: data.desired.rolloutId })}>
                      {data.desired.rolloutId.slice(0, 8)}
                    </Link>
                    )
                  </>
                ) : null}
              </>
            ) : (
              <span className="wf-muted">none</span>
            )}
          </Fact>
          <Fact term="State">
            <span className={`wf-status wf-status--${STATE_TONE[data.state]}`}>{data.state.replaceAll('_', ' ')}</span>
          </Fact>
          <Fact term="Next">{data.next}</Fact>
          <Fact term="Assignment">
            {data.assignment ? (
              `${data.assignment.profile}${data.assignment.pinnedRevision ? `@${data.assignment.pinnedRevision} (pinned)` : ' (latest)'}${data.assignment.overrides ? ', with overrides' : ''}`
            ) : (
              <span className="wf-muted">none</span>
            )}
          </Fact>
        </dl>
      ) : null}
    </Panel>
  );
}
