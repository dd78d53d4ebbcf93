import type { ApiFailure } from '../api/api-error.js';

/** A failed call as the operator reads it: the controller's sentence, the fields it names, the request id to find it in the log. */
export function ErrorNotice({ failure, onRetry }: { failure: ApiFailure; onRetry?: () => void }) {
  const details = failure.details.filter((d) => d.message);
  return (
    <div className="wf-error" role="alert">
      <p className="wf-error__message">{failure.message}</p>
      {details.length > 0 && (
        <ul className="wf-error__details">
          {details.map((d, i) => (
            <li key={i}>
              {d.path && d.path !== '/' ? <code>{d.path}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      )}
      <p className="wf-error__meta">
        {failure.status > 0 ? `HTTP ${failure.status} · ${failure.code}` : failure.code}
        {failure.requestId ? ` · request ${failure.requestId}` : ''}
        {onRetry ? (
          <>
            {' '}
            <button type="button" className="wf-button wf-button--small" onClick={onRetry}>
              Retry
            </button>
          </>
        ) : null}
      </p>
    </div>
  );
}
