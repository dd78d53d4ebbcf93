import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { PlanPreview } from './PlanPreview.js';
import { ProfileEditorPanel } from './ProfileEditorPanel.js';
import { RevisionDiff } from './RevisionDiff.js';
import type { JsonSchema } from './schema-check.js';
import { specText } from './spec-defaults.js';

/** One profile: its editor (from the latest revision), its revisions' diff, its plan preview. */
export function ProfileDetail({ name, schema }: { name: string; schema: JsonSchema | null }) {
  const { api } = useSignedIn();
  const [saved, setSaved] = useState<string | null>(null);
  // Under the profiles family: a saved revision invalidates it, and the new latest revision arrives.
  const revisions = useApiQuery(queryKeys.profile(name, 'revisions'), () =>
    unwrap(api.GET('/v1/profiles/{name}/revisions', { params: { path: { name }, query: { limit: 500 } } })),
  );
  // Whether the fleet's files manage it: the latest revision's view carries the mark (the
  // revisions do not), and a save invalidates the family, so the mark is read again with them.
  const current = useApiQuery(queryKeys.profile(name, 'latest'), () =>
    unwrap(api.GET('/v1/profiles/{name}', { params: { path: { name } } })),
  );
  const items = revisions.data?.items ?? [];
  const latest = items[0];
  return (
    <>
      {revisions.failure ? <ErrorNotice failure={revisions.failure} onRetry={revisions.retry} /> : null}
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
            managed={current.data?.managed ?? null}
            onSaved={(_name, revision, changed) => {
              if (!changed) return;
              setSaved(`Saved revision ${revision} of ${name}.`);
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
