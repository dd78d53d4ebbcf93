import { useMemo } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiPages } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { AuditEventRow } from './AuditEventRow.js';
import { AuditFilterForm } from './AuditFilterForm.js';
import { apiQueryOf, filtersFromSearch, searchOfFilters } from './audit-filters.js';
import { ExportButton } from './ExportButton.js';
import { VerifyChain } from './VerifyChain.js';
import './audit.css';

const PAGE_SIZE = 50;

/** The audit timeline, newest first: filters in the URL, keyset pages, each event's diff, verify chain, export. */
export default function AuditPage(_props: PageProps) {
  const { api } = useSignedIn();
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const key = searchOfFilters(filters).toString();
  // The filters' canonical query string names the listing; a new one starts from the newest event.
  const query = apiQueryOf(filters);
  const pages = useApiPages(
    [...queryKeys.audit, key],
    (cursor) =>
      unwrap(
        api.GET('/v1/audit', {
          params: { query: { ...query!, order: 'desc', limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    { enabled: query !== null },
  );
  const { items: events, failure, loading } = pages;

  return (
    <Page
      title="Audit"
      actions={
        <>
          <VerifyChain />
          <ExportButton filters={filters} />
        </>
      }
    >
      <AuditFilterForm
        key={key}
        filters={filters}
        onApply={(next) => setSearch(searchOfFilters(next), { replace: false })}
      />
      {failure ? <ErrorNotice failure={failure} onRetry={pages.retry} /> : null}
      {loading && events.length === 0 ? <Loading what="Loading the audit history" /> : null}
      {!loading && !failure && events.length === 0 ? <p className="wf-muted">No event matches these filters.</p> : null}
      {events.length > 0 ? (
        <ol className="wf-audit-timeline" aria-label="Audit events, newest first">
          {events.map((event) => (
            <AuditEventRow key={event.seq} event={event} />
          ))}
        </ol>
      ) : null}
      {pages.hasMore ? (
        <button type="button" className="wf-button" onClick={pages.loadMore} disabled={pages.loadingMore}>
          {pages.loadingMore ? 'Loading…' : 'Older events'}
        </button>
      ) : null}
    </Page>
  );
}
