import { SignInForm } from './SignInForm.js';

/** The console for someone not signed in: the sign-in form, at whatever URL they opened. */
export function SignInPage({ notice }: { notice: string | null }) {
  return (
    <main className="wf-signin" id="main">
      <div className="wf-signin__card">
        <h1 className="wf-signin__title">
          <span className="wf-brand__mark" aria-hidden="true" /> Sign in to wrtfleet
        </h1>
        {notice ? (
          <p className="wf-notice" role="status">
            {notice}
          </p>
        ) : null}
        <SignInForm />
      </div>
    </main>
  );
}
