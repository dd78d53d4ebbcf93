import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useEventStream } from '../../api/event-stream.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSearchParams } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { BulkActions } from './BulkActions.js';
import { CommandProgress } from './CommandProgress.js';
import { FleetCounts } from './FleetCounts.js';
import { FleetFilters } from './FleetFilters.js';
import { FleetTable } from './FleetTable.js';
import { apiFilter, apiListQuery, searchOfView, viewOfSearch, withFilter, withSortToggled } from './fleet-query.js';
import { NOTHING, selectAllMatching, selectedCount, toggle, togglePage, type Selection } from './fleet-selection.js';
import type { Command } from './fleet-types.js';
import { invalidateChangedRouters, parseRouterChange } from '../../api/router-changes.js';
import './fleet.css';

const PAGE_SIZE = 50;
/** Changes arriving together become one read of the page and the counts. */
const RELOAD_AFTER_MS = 250;

/** The fleet: counts, filters in the URL, a server-paged table that updates live, bulk actions on a selection. */
export default function FleetPage() {
  const { api, auth, can } = useSignedIn();
  const [search, setSearch] = useSearchParams();
  const view = useMemo(() => viewOfSearch(search), [search]);
  const filter = useMemo(() => apiFilter(view.filter), [view.filter]);
  const filterKey = JSON.stringify(filter);
  const client = useQueryClient();
  // The cursors of the pages before this one: keyset pages go forward, so back is remembered.
  const [previous, setPrevious] = useState<string[]>([]);
  const [selection, setSelection] = useState<Selection>(NOTHING);
  const [notice, setNotice] = useState<string | null>(null);
  const [job, setJob] = useState<Command | null>(null);
  const writable = can('write');

  // The previous filter's table stays until the new one arrives, as a filter change should look.
  const listQuery = apiListQuery(view, PAGE_SIZE);
  const list = useApiQuery(
    queryKeys.routerList(listQuery),
    () => unwrap(api.GET('/v1/routers', { params: { query: listQuery } })),
    { keepPrevious: true },
  );
  const counts = useApiQuery(
    queryKeys.routerCounts(filter),
    () => unwrap(api.GET('/v1/routers/counts', { params: { query: filter } })),
    { keepPrevious: true },
  );

  // A new filter is a new set of routers: the selection and the page history belong to the old one.
  // Adjusted while rendering, so the old selection is never drawn against the new rows.
  const setKey = `${filterKey}/${view.sort?.column}/${view.sort?.descending}`;
  const [selectionSet, setSelectionSet] = useState(setKey);
  if (selectionSet !== setKey) {
    setSelectionSet(setKey);
    setSelection(NOTHING);
    setPrevious([]);
  }

  // The feed says which routers changed: their cached queries (the lists, the counts, each
  // router's own page) are invalidated together, so the table reads once per burst.
  const changedIds = useRef(new Set<string>());
  const reloadTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(reloadTimer.current), []);
  const live = useEventStream('/v1/routers/events', auth, (event) => {
    const change = parseRouterChange(event);
    if (!change) return;
    for (const id of change.ids) changedIds.current.add(id);
    clearTimeout(reloadTimer.current);
    reloadTimer.current = setTimeout(() => {
      const ids = [...changedIds.current];
      changedIds.current.clear();
      void invalidateChangedRouters(client, ids);
    }, RELOAD_AFTER_MS);
  });

  const go = (next: typeof view) => setSearch(searchOfView(next));
  const rows = list.data?.items ?? [];
  const pageIds = rows.map((r) => r.id);
  const total = counts.data?.total ?? 0;
  const chosen = selectedCount(selection);

  const liveLabel =
    live.status === 'open'
      ? 'Live'
      : live.status === 'reconnecting'
        ? 'Reconnecting…'
        : live.status === 'failed'
          ? 'Live updates stopped'
          : 'Connecting…';

  return (
    <Page
      title="Fleet"
      actions={
        <span className={`wf-fleet-live wf-fleet-live--${live.status}`} role="status">
          {liveLabel}
        </span>
      }
    >
      <FleetCounts counts={counts.data} />
      <FleetFilters filter={view.filter} onChange={(change) => go(withFilter(view, change))} />
      {writable && chosen > 0 ? (
        <div className="wf-fleet-selection" aria-label="Selection">
          <span role="status">
            {chosen} selected{selection.kind === 'matching' ? ' (all that match the filter)' : ''}
          </span>
          {selection.kind === 'ids' && total > chosen ? (
            <button
              type="button"
              className="wf-button wf-button--link"
              onClick={() => setSelection(selectAllMatching(filter, total))}
            >
              Select all {total} that match
            </button>
          ) : null}
          <button type="button" className="wf-button wf-button--link" onClick={() => setSelection(NOTHING)}>
            Clear selection
          </button>
          <BulkActions selection={selection} onDone={setNotice} onCommand={setJob} />
        </div>
      ) : null}
      {notice ? (
        <p className="wf-notice" role="status">
          {notice}{' '}
          <button type="button" className="wf-button wf-button--link" onClick={() => setNotice(null)}>
            Dismiss
          </button>
        </p>
      ) : null}
      {job ? <CommandProgress key={job.id} job={job} onClose={() => setJob(null)} /> : null}
      {live.status === 'failed' ? <ErrorNotice failure={live.failure} /> : null}
      {list.failure ? <ErrorNotice failure={list.failure} onRetry={list.retry} /> : null}
      {counts.failure && !list.failure ? <ErrorNotice failure={counts.failure} onRetry={counts.retry} /> : null}
      {list.loading && !list.data ? <Loading what="Loading routers" /> : null}
      {list.data ? (
        <FleetTable
          rows={rows}
          view={view}
          selection={selection}
          selectable={writable}
          onSort={(column) => go(withSortToggled(view, column))}
          onToggle={(id) => setSelection(toggle(selection, id, pageIds))}
          onTogglePage={() => setSelection(togglePage(selection, pageIds))}
        />
      ) : null}
      <nav className="wf-fleet-pager" aria-label="Pages">
        <button
          type="button"
          className="wf-button wf-button--small"
          disabled={!view.cursor}
          onClick={() => {
            const back = previous.slice(0, -1);
            const cursor = previous[previous.length - 1];
            setPrevious(back);
            setSearch(searchOfView({ ...view, cursor: cursor || undefined }));
          }}
        >
          Previous page
        </button>
        <span>
          {rows.length ? `${previous.length * PAGE_SIZE + 1}–${previous.length * PAGE_SIZE + rows.length}` : '0'} of{' '}
          {total}
        </span>
        <button
          type="button"
          className="wf-button wf-button--small"
          disabled={!list.data?.nextCursor}
          onClick={() => {
            setPrevious([...previous, view.cursor ?? '']);
            setSearch(searchOfView({ ...view, cursor: list.data!.nextCursor! }));
          }}
        >
          Next page
        </button>
      </nav>
    </Page>
  );
}
