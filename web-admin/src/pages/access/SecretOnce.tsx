import { useId, useState } from 'react';

/**
 * A freshly minted secret (API or enrollment token): shown here once, with a copy button and
 * the warning that the controller keeps only its hash. Dismissing it forgets it.
 */
export function SecretOnce({
  title,
  secret,
  details,
  onDismiss,
}: {
  title: string;
  secret: string;
  details?: { label: string; value: string }[];
  onDismiss: () => void;
}) {
  const id = useId();
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = () => {
    navigator.clipboard.writeText(secret).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  };
  return (
    <div className="wf-secret" role="region" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p className="wf-secret__warning">
        Copy it now: it is shown only this once. The controller keeps only its hash and cannot show it again.
      </p>
      <div className="wf-secret__value">
        <label htmlFor={`${id}-value`} className="wf-visually-hidden">
          {title}
        </label>
        <input
          id={`${id}-value`}
          readOnly
          value={secret}
          spellCheck={false}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" className="wf-button wf-button--primary wf-button--small" onClick={copy}>
          Copy
        </button>
        <span role="status" className="wf-secret__copied">
          {copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copying failed: select the text and copy it.' : ''}
        </span>
      </div>
      {details?.length ? (
        <dl className="wf-secret__details">
          {details.map((d) => (
            <div key={d.label}>
              <dt>{d.label}</dt>
              <dd>
                <code>{d.value}</code>
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      <button type="button" className="wf-button wf-button--small" onClick={onDismiss}>
        I have copied it
      </button>
    </div>
  );
}
