import type { PageProps } from '../../app/routes.js';
import { Page } from '../../components/Page.js';
import { Placeholder } from '../../components/Placeholder.js';

/** The audit timeline: filters, each event's diff, verify chain, export. */
export default function AuditPage(_props: PageProps) {
  return (
    <Page title="Audit">
      <Placeholder>The audit timeline: filters, each event's diff, verify chain, export.</Placeholder>
    </Page>
  );
}
