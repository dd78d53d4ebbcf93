import type { PageProps } from '../../app/routes.js';
import { Page } from '../../components/Page.js';
import { Placeholder } from '../../components/Placeholder.js';

/** One rollout's live progress: batches, per-router state, pause, resume, abort. */
export default function RolloutPage({ params }: PageProps) {
  return (
    <Page title={`Rollout ${params.id}`}>
      <Placeholder>One rollout's live progress: batches, per-router state, pause, resume, abort.</Placeholder>
    </Page>
  );
}
