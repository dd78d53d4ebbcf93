import type { PageProps } from '../../app/routes.js';
import { Page } from '../../components/Page.js';
import { Placeholder } from '../../components/Placeholder.js';

/** Profiles: the list, the spec editor, revisions and their diff, plan preview. */
export default function ProfilesPage(_props: PageProps) {
  return (
    <Page title="Profiles">
      <Placeholder>Profiles: the list, the spec editor, revisions and their diff, plan preview.</Placeholder>
    </Page>
  );
}
