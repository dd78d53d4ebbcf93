import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { Page } from '../../components/Page.js';
import { AccountsSection } from './AccountsSection.js';
import { ApiTokensSection } from './ApiTokensSection.js';
import { EnrollmentTokensSection } from './EnrollmentTokensSection.js';
import { OwnPasswordForm } from './OwnPasswordForm.js';
import './access.css';

/**
 * Access: operator accounts and roles, API tokens, enrollment tokens. Each part shows only
 * to a caller whose scopes allow it (the controller refuses the rest anyway); everyone signed
 * in with an account may change their own password.
 */
export default function AccessPage(_props: PageProps) {
  const { can, kind, role, name } = useSignedIn();
  const admin = can('admin');
  return (
    <Page title="Access">
      <p className="wf-access__whoami">
        Signed in as <strong>{name}</strong> ({kind === 'account' ? 'account' : 'API token'}, role {role ?? 'none'}).
      </p>
      {!admin && !can('enroll') ? (
        <p className="wf-notice">Your role ({role ?? 'none'}) may not manage accounts or tokens; an admin can.</p>
      ) : null}
      {admin ? <AccountsSection /> : null}
      {admin ? <ApiTokensSection /> : null}
      {can('enroll') ? <EnrollmentTokensSection /> : null}
      {kind === 'account' ? <OwnPasswordForm /> : null}
    </Page>
  );
}
