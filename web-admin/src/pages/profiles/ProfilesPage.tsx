import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { Link, useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { ProfileDetail } from './ProfileDetail.js';
import { NEW_SPEC_TEXT, ProfileEditorPanel } from './ProfileEditorPanel.js';
import { loadSpecSchema } from './spec-schema.js';
import './panels.css';
import './profiles.css';

/** Profiles: the list; the selected profile's editor, revisions with their diff, plan preview. */
export default function ProfilesPage(_props: PageProps) {
  const { api, can } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const selected = params.get('profile');
  const creating = params.get('new') === '1';
  const [listTick, setListTick] = useState(0);
  const list = useApi(() => unwrap(api.GET('/v1/profiles', { params: { query: { limit: 500 } } })), [api, listTick]);
  const schema = useApi(loadSpecSchema, []);

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
          {list.failure ? <ErrorNotice failure={list.failure} onRetry={list.reload} /> : null}
          {list.loading && !list.data ? <Loading what="Loading profiles" /> : null}
          {list.data && list.data.items.length === 0 ? <p className="wf-muted">No profile yet.</p> : null}
          {list.data && list.data.items.length > 0 ? (
            <div className="wf-table-wrap">
              <table className="wf-table">
                <thead>
                  <tr>
                    <th scope="col">Profile</th>
                    <th scope="col">Latest</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.items.map((p) => (
                    <tr key={p.name} aria-current={p.name === selected ? 'true' : undefined}>
                      <td>
                        <Link to={`/profiles?profile=${encodeURIComponent(p.name)}`}>{p.name}</Link>
                      </td>
                      <td>{p.latestRevision}</td>
                      <td title={new Date(p.updatedAt).toLocaleString()}>
                        {new Date(p.updatedAt).toLocaleDateString()}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </nav>
        <div className="wf-profiles__detail">
          {schema.failure ? <ErrorNotice failure={schema.failure} onRetry={schema.reload} /> : null}
          {creating ? (
            <ProfileEditorPanel
              key="new"
              name={null}
              baseRevision={0}
              initialText={NEW_SPEC_TEXT}
              schema={schema.data ?? null}
              onSaved={(name) => {
                setListTick((n) => n + 1);
                open({ profile: name });
              }}
            />
          ) : selected ? (
            <ProfileDetail
              key={selected}
              name={selected}
              schema={schema.data ?? null}
              onChanged={() => setListTick((n) => n + 1)}
            />
          ) : (
            <p className="wf-muted">Choose a profile to edit it, compare its revisions and preview its plan.</p>
          )}
        </div>
      </div>
    </Page>
  );
}
