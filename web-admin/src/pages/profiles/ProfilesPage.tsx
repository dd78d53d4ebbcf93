import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { Link, useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { ManagedMark } from '../../components/ManagedMark.js';
import { Page } from '../../components/Page.js';
import { ProfileDetail } from './ProfileDetail.js';
import { NEW_SPEC_TEXT, ProfileEditorPanel } from './ProfileEditorPanel.js';
import { loadSpecSchema } from './spec-schema.js';
import './panels.css';
import './profiles.css';

type ProfileRow = ProfileList['items'][number];
type ProfileList = ApiPaths['/v1/profiles']['get']['responses'][200]['content']['application/json'];

const COLUMNS: Column<ProfileRow>[] = [
  {
    id: 'name',
    header: 'Profile',
    sortValue: (p) => p.name,
    cell: (p) => <Link to={`/profiles?profile=${encodeURIComponent(p.name)}`}>{p.name}</Link>,
  },
  { id: 'latest', header: 'Latest', sortValue: (p) => p.latestRevision, cell: (p) => p.latestRevision },
  {
    id: 'updated',
    header: 'Updated',
    sortValue: (p) => p.updatedAt,
    cell: (p) => (
      <span title={new Date(p.updatedAt).toLocaleString()}>{new Date(p.updatedAt).toLocaleDateString()}</span>
    ),
  },
];

/** Profiles: the list; the selected profile's editor, revisions with their diff, plan preview. */
export default function ProfilesPage(_props: PageProps) {
  const { api, can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const selected = params.get('profile');
  const creating = params.get('new') === '1';
  // Saving a revision invalidates the profiles family (ProfileEditorPanel): this list reads again.
  const list = useApiQuery([...queryKeys.profiles, 'list'], () =>
    unwrap(api.GET('/v1/profiles', { params: { query: { limit: 500 } } })),
  );
  const schema = useApiQuery(queryKeys.specSchema, loadSpecSchema);

  const open = (next: Record<string, string>) => setParams(new URLSearchParams(next), { replace: false });

  return (
    <Page
      title="Profiles"
      actions={
        can('write') ? (
          <button type="button" className="wf-button wf-button--primary" onClick={() => open({ new: '1' })}>
            New profile
          </button>
        ) : null
      }
    >
      <div className="wf-profiles">
        <nav className="wf-panel wf-profiles__list" aria-label="Profiles">
          <DataTable
            rows={list.data?.items ?? []}
            columns={COLUMNS}
            rowKey={(p) => p.name}
            caption="Profiles"
            rowProps={(p) => ({ 'aria-current': p.name === selected ? 'true' : undefined })}
            // The mark on a line of its own under the profile's row: beside the name it would
            // widen this narrow list past its revision and date columns.
            detail={(p) =>
              p.managed ? { id: `managed-${p.name}`, content: <ManagedMark managed={p.managed} /> } : null
            }
            empty={<p className="wf-muted">No profile yet.</p>}
            failure={list.failure}
            onRetry={list.retry}
            loading={list.loading}
            loadingWhat="Loading profiles"
          />
        </nav>
        <div className="wf-profiles__detail">
          {schema.failure ? <ErrorNotice failure={schema.failure} onRetry={schema.retry} /> : null}
          {creating ? (
            <ProfileEditorPanel
              key="new"
              name={null}
              baseRevision={0}
              initialText={NEW_SPEC_TEXT}
              schema={schema.data ?? null}
              onSaved={(name) => open({ profile: name })}
            />
          ) : selected ? (
            <ProfileDetail key={selected} name={selected} schema={schema.data ?? null} />
          ) : (
            <p className="wf-muted">Choose a profile to edit it, compare its revisions and preview its plan.</p>
          )}
        </div>
      </div>
    </Page>
  );
}
