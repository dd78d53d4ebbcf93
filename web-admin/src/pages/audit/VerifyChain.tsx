import { unwrap } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';

/** "Verify chain": the controller re-hashes the whole history and checks every subject has its event. */
export function VerifyChain() {
  const { api } = useSignedIn();
  // A read, but one the operator asks for (it re-hashes the whole history): run on demand, never cached.
  const verify = useApiMutation(() => unwrap(api.GET('/v1/audit/verify')));
  const verdict = verify.data ?? null;
  const busy = verify.pending;
  const failure = verify.failure;
  return (
    <div className="wf-verify">
      <button type="button" className="wf-button" onClick={() => verify.run(undefined)} disabled={busy}>
        {busy ? 'Verifying…' : 'Verify chain'}
      </button>
      <div role="status" aria-live="polite" className="wf-verify__result">
        {verdict ? (
          verdict.ok ? (
            <span>
              <span className="wf-status wf-status--succeeded">ok</span> {verdict.checked} events checked, chain intact,
              nothing missing
            </span>
          ) : (
            <span>
              <span className="wf-status wf-status--failed">broken</span>{' '}
              {verdict.firstBroken
                ? `first broken link at #${verdict.firstBroken.seq}: ${verdict.firstBroken.reason}. `
                : ''}
              {verdict.missingCount > 0
                ? `${verdict.missingCount} without their event: ${verdict.missing
                    .slice(0, 5)
                    .map((m) => `${m.kind} ${m.label ?? m.id} (${m.missingEvent})`)
                    .join('; ')}`
                : ''}
            </span>
          )
        ) : null}
      </div>
      {failure ? <ErrorNotice failure={failure} onRetry={() => verify.run(undefined)} /> : null}
    </div>
  );
}
