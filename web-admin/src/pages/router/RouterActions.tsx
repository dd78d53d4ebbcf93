import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
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
 * shows under the buttons (a command's progress live). What an action changes is invalidated
 * in the query cache (this router's panels, the fleet list, the command history), so every
 * panel reads it again.
 */
export function RouterActions({
  routerId,
  routerName,
  decommissioned,
}: {
  routerId: string;
  routerName: string;
  decommissioned: boolean;
}) {
  const { api, can } = useSignedIn();
  const client = useQueryClient();
  const [asking, setAsking] = useState<RouterAction | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const changes = [queryKeys.router(routerId), queryKeys.routers, queryKeys.commands];
  const act = useApiMutation(
    async (action: RouterAction): Promise<Outcome> => {
      const path = { path: { id: routerId } };
      if (action.via === 'command') {
        const job = await unwrap(
          api.POST('/v1/routers/{id}/commands', { params: path, body: { kind: action.id as CommandKind } }),
        );
        return { kind: 'job', action, jobId: job.id };
      }
      if (action.id === 'decommission') {
        const done = await unwrap(api.POST('/v1/routers/{id}/decommission', { params: path }));
        return {
          kind: 'done',
          action,
          lines: [
            `decommissioned at ${new Date(done.decommissionedAt).toLocaleString()}`,
            `${done.revokedCertificates} ${done.revokedCertificates === 1 ? 'certificate' : 'certificates'} revoked`,
          ],
        };
      }
      const minted = await unwrap(api.POST('/v1/routers/{id}/re-enroll', { params: path, body: {} }));
      return {
        kind: 'done',
        action,
        lines: [
          `identity ${minted.identity}`,
          `controller ${minted.grpcAddress}`,
          minted.caFingerprint ? `CA fingerprint ${minted.caFingerprint}` : 'no CA fingerprint (plaintext agents)',
          `expires ${new Date(minted.expiresAt).toLocaleString()}`,
        ],
        secret: minted.token,
      };
    },
    { invalidates: changes, onSuccess: setOutcome },
  );
  const actions = actionsFor(can, decommissioned);
  if (actions.length === 0) return null;
  const commandEnded = () => {
    for (const queryKey of changes) void client.invalidateQueries({ queryKey });
  };
  const confirm = (action: RouterAction) => act.run(action, { onSettled: () => setAsking(null) });

  return (
    <div className="wf-actions">
      <div className="wf-actions__buttons" role="group" aria-label="Router actions">
        {actions.map((action) => (
          <button
            key={action.id}
            type="button"
            className={`wf-button wf-button--small${action.danger ? ' wf-button--danger' : ''}`}
            onClick={() => {
              act.reset();
              setAsking(action);
            }}
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
          busy={act.pending}
          onConfirm={() => confirm(asking)}
          onCancel={() => setAsking(null)}
        >
          <p>{asking.explain}</p>
          <p className="wf-muted">The change is audited with you as its actor.</p>
        </ConfirmDialog>
      ) : null}
      {act.failure ? <ErrorNotice failure={act.failure} /> : null}
      {outcome?.kind === 'job' ? (
        <CommandProgress
          key={outcome.jobId}
          jobId={outcome.jobId}
          label={outcome.action.label}
          onEnded={commandEnded}
        />
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
