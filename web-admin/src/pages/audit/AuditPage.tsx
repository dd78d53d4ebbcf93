import { useEffect, useMemo, useState } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap } from '../../api/client.js';
import { useSearchParams } from '../../app/navigation.js';
import type { PageProps } from '../../app/page-props.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Page } from '../../components/Page.js';
import { AuditEventRow } from './AuditEventRow.js';
import { AuditFilterForm } from './AuditFilterForm.js';
import { apiQueryOf, filtersFromSearch, searchOfFilters } from './audit-filters.js';
import type { AuditEvent } from './audit-types.js';
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
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);

  const load = async (cursor: string | null) => {
    const query = apiQueryOf(filters);
    if (!query) return;
    setLoading(true);
    try {
      const page = await unwrap(
        api.GET('/v1/audit', {
          params: { query: { ...query, order: 'desc', limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      );
      setEvents((before) => (cursor ? [...before, ...page.items] : page.items));
      setNext(page.nextCursor);
      setFailure(null);
    } catch (error) {
      setFailure(asFailure(error));
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    void load(null);
    // The filters' canonical query string names them; a new one starts from the newest event.
  }, [api, key, tick]);

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
      {failure ? <ErrorNotice failure={failure} onRetry={() => setTick((n) => n + 1)} /> : null}
      {loading && events.length === 0 ? <Loading what="Loading the audit history" /> : null}
      {!loading && !failure && events.length === 0 ? <p className="wf-muted">No event matches these filters.</p> : null}
      {events.length > 0 ? (
        <ol className="wf-audit-timeline" aria-label="Audit events, newest first">
          {events.map((event) => (
            <AuditEventRow key={event.seq} event={event} />
          ))}
        </ol>
      ) : null}
      {next ? (
        <button type="button" className="wf-button" onClick={() => void load(next)} disabled={loading}>
          {loading ? 'Loading…' : 'Older events'}
        </button>
      ) : null}
    </Page>
  );
}
