import { useEffect, useRef } from 'react';
import { SignInForm } from './SignInForm.js';

/**
 * Shown over the open page when its session ends: the page stays mounted underneath, so an
 * edit in progress is still there after signing in again.
 */
export function SessionExpiredDialog({ name }: { name: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="wf-dialog"
      aria-labelledby="session-expired-title"
      // Escape would leave the page without a session; the dialog stays until signed in.
      onCancel={(event) => event.preventDefault()}
    >
      <h2 id="session-expired-title">Your session has ended</h2>
      <p>Sign in again to continue; what you were editing is kept.</p>
      <SignInForm name={name} />
    </dialog>
  );
}
