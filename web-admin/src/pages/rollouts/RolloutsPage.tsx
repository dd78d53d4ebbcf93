import type { PageProps } from '../../app/routes.js';
import { Page } from '../../components/Page.js';
import { Placeholder } from '../../components/Placeholder.js';

/** Rollouts: the list and the wizard that starts one. */
export default function RolloutsPage(_props: PageProps) {
  return (
    <Page title="Rollouts">
      <Placeholder>Rollouts: the list and the wizard that starts one.</Placeholder>
    </Page>
  );
}
