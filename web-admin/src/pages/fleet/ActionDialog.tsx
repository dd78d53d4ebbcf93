import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react';

interface ActionDialogProps {
  title: string;
  /** What the confirm button says ("Tag 3 routers"). */
  confirm: string;
  busy?: boolean;
  onConfirm(): void;
  onClose(): void;
  children: ReactNode;
}

/** A modal form for one bulk action: confirm runs it, Escape or Cancel closes it. */
export function ActionDialog({ title, confirm, busy, onConfirm, onClose, children }: ActionDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onConfirm();
  };
  return (
    <dialog ref={dialog} className="wf-dialog" aria-labelledby={titleId} onClose={onClose}>
      <form className="wf-form" onSubmit={submit}>
        <h2 id={titleId}>{title}</h2>
        {children}
        <div className="wf-form__actions">
          <button type="submit" className="wf-button wf-button--primary" disabled={busy}>
            {confirm}
          </button>
          <button type="button" className="wf-button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
