import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { PlanPreview } from './PlanPreview.js';
import { ProfileEditorPanel } from './ProfileEditorPanel.js';
import { RevisionDiff } from './RevisionDiff.js';
import type { JsonSchema } from './schema-check.js';
import { specText } from './spec-defaults.js';

/** One profile: its editor (from the latest revision), its revisions' diff, its plan preview. */
export function ProfileDetail({
  name,
  schema,
  onChanged,
}: {
  name: string;
  schema: JsonSchema | null;
  onChanged(): void;
}) {
  const { api } = useSignedIn();
  const [tick, setTick] = useState(0);
  const [saved, setSaved] = useState<string | null>(null);
  const revisions = useApi(
    () => unwrap(api.GET('/v1/profiles/{name}/revisions', { params: { path: { name }, query: { limit: 500 } } })),
    [api, name, tick],
  );
  const items = revisions.data?.items ?? [];
  const latest = items[0];
  return (
    <>
      {revisions.failure ? <ErrorNotice failure={revisions.failure} onRetry={revisions.reload} /> : null}
      {revisions.loading && !revisions.data ? <Loading what={`Loading ${name}`} /> : null}
      {saved ? (
        <p className="wf-notice" role="status">
          {saved}
        </p>
      ) : null}
      {latest ? (
        <>
          <ProfileEditorPanel
            // A new latest revision starts a fresh edit from it; until then the text is kept.
            key={latest.revision}
            name={name}
            baseRevision={latest.revision}
            initialText={specText(latest.spec)}
            schema={schema}
            onSaved={(_name, revision, changed) => {
              if (!changed) return;
              setSaved(`Saved revision ${revision} of ${name}.`);
              setTick((n) => n + 1);
              onChanged();
            }}
          />
          <RevisionDiff
            key={`diff-${latest.revision}`}
            revisions={items.map((r) => ({
              revision: r.revision,
              createdBy: r.createdBy,
              createdAt: r.createdAt,
              text: specText(r.spec),
            }))}
          />
          <PlanPreview key={`preview-${latest.revision}`} profile={name} revisions={items.map((r) => r.revision)} />
        </>
      ) : null}
    </>
  );
}
