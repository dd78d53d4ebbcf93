import type { FirmwareImage } from './upload-image.js';

/** An image's metadata as read at upload, and why the routers it does not fit are refused. */
export function ImageDetail({ image }: { image: FirmwareImage }) {
  const { metadata, fit } = image;
  return (
    <div className="wf-image-detail">
      <section aria-label={`Metadata of ${image.fileName}`}>
        <h3>Metadata</h3>
        <dl className="wf-kv">
          <dt>Supported devices</dt>
          <dd>{metadata.supportedDevices.length > 0 ? metadata.supportedDevices.join(', ') : 'none listed'}</dd>
          {metadata.newSupportedDevices && metadata.newSupportedDevices.length > 0 ? (
            <>
              <dt>New supported devices</dt>
              <dd>{metadata.newSupportedDevices.join(', ')}</dd>
            </>
          ) : null}
          <dt>Version</dt>
          <dd>
            {metadata.version.dist} {metadata.version.version} {metadata.version.revision}
            {metadata.version.board ? ` · board ${metadata.version.board}` : ''}
          </dd>
          <dt>Compat version</dt>
          <dd>
            {metadata.compatVersion}
            {metadata.compatMessage ? ` · ${metadata.compatMessage}` : ''}
          </dd>
          <dt>SHA-256</dt>
          <dd>
            <code className="wf-sha">{image.sha256}</code>
          </dd>
        </dl>
      </section>
      <section aria-label={`Routers ${image.fileName} does not fit`}>
        <h3>Why the others do not fit</h3>
        {fit.refusals.length === 0 ? (
          <p className="wf-muted">It fits every router of the fleet.</p>
        ) : (
          <ul className="wf-refusals">
            {fit.refusals.map((r) => (
              <li key={r.code}>
                <strong>
                  {r.routers} {r.routers === 1 ? 'router' : 'routers'}
                </strong>{' '}
                <span className="wf-badge">{r.code}</span> {r.reason}
                {r.examples.length > 0 ? (
                  <div className="wf-muted">
                    e.g. {r.examples.join(', ')}
                    {r.routers > r.examples.length ? ` and ${r.routers - r.examples.length} more` : ''}
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
