import { useEffect, useId, useRef, type ReactNode } from 'react';

interface ConfirmDialogProps {
  title: string;
  /** What will happen, in words, so the operator confirms knowingly. */
  children: ReactNode;
  confirmLabel: string;
  /** The button that closes the dialog doing nothing; "Cancel" unless the action is itself a cancel. */
  dismissLabel?: string;
  /** A destructive action (decommission, detach) gets the danger colour. */
  danger?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/**
 * A modal confirmation (the native <dialog>: focus is trapped and returns, Escape cancels).
 * Cancel has the focus first, so Enter alone never runs an action.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  dismissLabel = 'Cancel',
  danger,
  busy,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    cancel.current?.focus();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="wf-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="wf-dialog__body">{children}</div>
      <div className="wf-form__actions">
        <button ref={cancel} type="button" className="wf-button" onClick={onCancel} disabled={busy}>
          {dismissLabel}
        </button>
        <button
          type="button"
          className={`wf-button ${danger ? 'wf-button--danger' : 'wf-button--primary'}`}
          onClick={onConfirm}
          disabled={busy}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
