import type { PageProps } from '../../app/routes.js';
import { Page } from '../../components/Page.js';
import { Placeholder } from '../../components/Placeholder.js';

/** Onboarding: one router over SSH, or an inventory upload, with live progress. */
export default function OnboardingPage(_props: PageProps) {
  return (
    <Page title="Onboarding">
      <Placeholder>Onboarding: one router over SSH, or an inventory upload, with live progress.</Placeholder>
    </Page>
  );
}
