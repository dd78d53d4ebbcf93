import type { PageProps } from '../../app/routes.js';
import { Page } from '../../components/Page.js';
import { Placeholder } from '../../components/Placeholder.js';

/** Access: operator accounts and roles, API tokens, enrollment tokens. */
export default function AccessPage(_props: PageProps) {
  return (
    <Page title="Access">
      <Placeholder>Access: operator accounts and roles, API tokens, enrollment tokens.</Placeholder>
    </Page>
  );
}
