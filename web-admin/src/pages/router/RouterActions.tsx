import { useState } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
import { useSignedIn } from '../../app/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { CommandProgress } from './CommandProgress.js';
import { actionsFor, type RouterAction } from './router-actions.js';
import type { CommandKind } from './router-types.js';

/** What the last action gave: a command to follow, or a call's answer in words. */
type Outcome =
  | { kind: 'job'; action: RouterAction; jobId: string }
  | { kind: 'done'; action: RouterAction; lines: string[]; secret?: string };

/**
 * The router's actions, each behind a confirmation, hidden without the scope; the result
 * shows under the buttons (a command's progress live), and `onChanged` reloads the page's data.
 */
export function RouterActions({
  routerId,
  routerName,
  decommissioned,
  onChanged,
}: {
  routerId: string;
  routerName: string;
  decommissioned: boolean;
  onChanged(): void;
}) {
  const { api, can } = useSignedIn();
  const [asking, setAsking] = useState<RouterAction | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const actions = actionsFor(can, decommissioned);
  if (actions.length === 0) return null;

  const run = async (action: RouterAction) => {
    setBusy(true);
    setFailure(null);
    try {
      const path = { path: { id: routerId } };
      if (action.via === 'command') {
        const job = await unwrap(
          api.POST('/v1/routers/{id}/commands', { params: path, body: { kind: action.id as CommandKind } }),
        );
        setOutcome({ kind: 'job', action, jobId: job.id });
      } else if (action.id === 'decommission') {
        const done = await unwrap(api.POST('/v1/routers/{id}/decommission', { params: path }));
        setOutcome({
          kind: 'done',
          action,
          lines: [
            `decommissioned at ${new Date(done.decommissionedAt).toLocaleString()}`,
            `${done.revokedCertificates} ${done.revokedCertificates === 1 ? 'certificate' : 'certificates'} revoked`,
          ],
        });
        onChanged();
      } else {
        const minted = await unwrap(api.POST('/v1/routers/{id}/re-enroll', { params: path, body: {} }));
        setOutcome({
          kind: 'done',
          action,
          lines: [
            `identity ${minted.identity}`,
            `controller ${minted.grpcAddress}`,
            minted.caFingerprint ? `CA fingerprint ${minted.caFingerprint}` : 'no CA fingerprint (plaintext agents)',
            `expires ${new Date(minted.expiresAt).toLocaleString()}`,
          ],
          secret: minted.token,
        });
        onChanged();
      }
      setAsking(null);
    } catch (error) {
      setFailure(asFailure(error));
      setAsking(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="wf-actions">
      <div className="wf-actions__buttons" role="group" aria-label="Router actions">
        {actions.map((action) => (
          <button
            key={action.id}
            type="button"
            className={`wf-button wf-button--small${action.danger ? ' wf-button--danger' : ''}`}
            onClick={() => setAsking(action)}
          >
            {action.label}
          </button>
        ))}
      </div>
      {asking ? (
        <ConfirmDialog
          title={`${asking.label}: ${routerName}?`}
          confirmLabel={asking.label}
          danger={asking.danger}
          busy={busy}
          onConfirm={() => void run(asking)}
          onCancel={() => setAsking(null)}
        >
          <p>{asking.explain}</p>
          <p className="wf-muted">The change is audited with you as its actor.</p>
        </ConfirmDialog>
      ) : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      {outcome?.kind === 'job' ? (
        <CommandProgress key={outcome.jobId} jobId={outcome.jobId} label={outcome.action.label} onEnded={onChanged} />
      ) : null}
      {outcome?.kind === 'done' ? (
        <div className="wf-result" role="status">
          <p>
            <strong>{outcome.action.label}</strong>: done
          </p>
          {outcome.secret ? (
            <p>
              Re-enrolment token (shown once): <code className="wf-break">{outcome.secret}</code>
            </p>
          ) : null}
          <ul>
            {outcome.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
