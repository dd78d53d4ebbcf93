import { useQueries } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { describeSilence, formatWhen as when, silenceRouterIds } from './alert-format.js';
import type { Silence } from './alert-types.js';

/** The silences not yet ended (running or waiting to start), each with "End now" for writers. */
export function SilencesSection({
  routerNames: shown,
  refreshMs,
}: {
  routerNames: ReadonlyMap<string, string>;
  refreshMs: number;
}) {
  const { api, can } = useSignedIn();
  const [ending, setEnding] = useState<Silence | null>(null);
  const list = useApiQuery(queryKeys.silences, () => unwrap(api.GET('/v1/silences', { params: { query: {} } })), {
    refetchEvery: refreshMs,
  });
  // A silence of one router names it by id: the alerts on screen name most, the others are read
  // (as their router pages read them, under the same key). More routers are counted, not named.
  const unknown = [
    ...new Set(
      (list.data?.items ?? [])
        .map((s) => silenceRouterIds(s.selector))
        .flatMap((ids) => (ids.length === 1 && !shown.has(ids[0]!) ? ids : [])),
    ),
  ];
  const looked = useQueries({
    queries: unknown.map((id) => ({
      queryKey: queryKeys.router(id),
      queryFn: () => unwrap(api.GET('/v1/routers/{id}', { params: { path: { id } } })),
      staleTime: 60_000,
    })),
  });
  const routerNames = new Map(shown);
  looked.forEach((q, i) => {
    if (q.data?.name) routerNames.set(unknown[i]!, q.data.name);
  });
  const end = useApiMutation((id: string) => unwrap(api.DELETE('/v1/silences/{id}', { params: { path: { id } } })), {
    invalidates: [queryKeys.alerts],
  });
  const columns: Column<Silence>[] = [
    {
      id: 'matches',
      header: 'Matches',
      rowHeader: true,
      sortValue: (s) => describeSilence(s, routerNames),
      cell: (s) => describeSilence(s, routerNames),
    },
    { id: 'comment', header: 'Comment', className: 'wf-alerts__summary', cell: (s) => s.comment },
    {
      id: 'state',
      header: 'State',
      cell: (s) => (
        <span className={`wf-status wf-alert-status--${s.active ? 'silenced' : 'waiting'}`}>
          {s.active ? 'running' : 'waiting'}
        </span>
      ),
    },
    {
      id: 'starts',
      header: 'Starts',
      className: 'wf-alerts__time',
      sortValue: (s) => s.startsAt,
      cell: (s) => when(s.startsAt),
    },
    {
      id: 'ends',
      header: 'Ends',
      className: 'wf-alerts__time',
      sortValue: (s) => s.endsAt,
      cell: (s) => when(s.endsAt),
    },
    { id: 'by', header: 'Created by', sortValue: (s) => s.createdBy, cell: (s) => s.createdBy },
    ...(can('write')
      ? [
          {
            id: 'actions',
            header: 'Actions',
            cell: (s: Silence) => (
              <button
                type="button"
                className="wf-button wf-button--small wf-button--danger"
                aria-label={`End now: ${describeSilence(s, routerNames)}`}
                onClick={() => {
                  end.reset();
                  setEnding(s);
                }}
              >
                End now
              </button>
            ),
          },
        ]
      : []),
  ];
  return (
    <section className="wf-panel" aria-labelledby="silences-title">
      <h2 id="silences-title">Silences</h2>
      {ending ? (
        <ConfirmDialog
          title="End this silence now?"
          confirmLabel="End silence"
          danger
          busy={end.pending}
          onConfirm={() => end.run(ending.id, { onSuccess: () => setEnding(null) })}
          onCancel={() => setEnding(null)}
        >
          <p>
            {describeSilence(ending, routerNames)}: “{ending.comment}”. The alerts it holds back are announced again at
            the next evaluation if they still fire.
          </p>
          {end.failure ? <ErrorNotice failure={end.failure} /> : null}
        </ConfirmDialog>
      ) : null}
      <DataTable
        rows={list.data?.items ?? []}
        columns={columns}
        rowKey={(s) => s.id}
        caption="Silences"
        empty={<p className="wf-muted">No silence is running or waiting.</p>}
        failure={list.failure}
        onRetry={list.retry}
        loading={list.loading}
        loadingWhat="Loading silences"
      />
    </section>
  );
}
