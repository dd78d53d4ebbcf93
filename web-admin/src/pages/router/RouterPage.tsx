import { unwrap } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import type { PageProps } from '../../app/routes.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { Placeholder } from '../../components/Placeholder.js';

/** One router: facts, capabilities, plan, revisions, apply history, drift, live counters, actions. */
export default function RouterPage({ params }: PageProps) {
  const { api } = useSignedIn();
  const id = params.id ?? '';
  const router = useApi(() => unwrap(api.GET('/v1/routers/{id}', { params: { path: { id } } })), [api, id]);
  return (
    <Page title={router.data ? router.data.name : 'Router'}>
      {router.failure ? <ErrorNotice failure={router.failure} onRetry={router.reload} /> : null}
      {router.loading && !router.data ? <Loading what="Loading the router" /> : null}
      {router.data ? (
        <Placeholder>
          {router.data.soc ?? 'unknown SoC'} · {router.data.model ?? 'unknown model'}: facts, capabilities, plan,
          revisions, apply history, drift, live counters and actions come here.
        </Placeholder>
      ) : null}
    </Page>
  );
}
