import { useState } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import type { AuditVerdict } from './audit-types.js';

/** "Verify chain": the controller re-hashes the whole history and checks every subject has its event. */
export function VerifyChain() {
  const { api } = useSignedIn();
  const [verdict, setVerdict] = useState<AuditVerdict | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    setFailure(null);
    try {
      setVerdict(await unwrap(api.GET('/v1/audit/verify')));
    } catch (error) {
      setFailure(asFailure(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="wf-verify">
      <button type="button" className="wf-button" onClick={() => void verify()} disabled={busy}>
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
      {failure ? <ErrorNotice failure={failure} onRetry={() => void verify()} /> : null}
    </div>
  );
}
