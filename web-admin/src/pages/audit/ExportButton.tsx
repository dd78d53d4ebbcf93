import { failureFrom } from '../../api/api-error.js';
import { useApiMutation } from '../../api/queries.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { apiQueryOf, exportFileName, type AuditFilters } from './audit-filters.js';

/**
 * Export of the filtered events as JSON lines. A plain link would not carry the console's
 * credentials (a pasted token lives in memory only), so the file is fetched with them and
 * saved from a Blob.
 */
export function ExportButton({ filters }: { filters: AuditFilters }) {
  const { api } = useSignedIn();
  const query = apiQueryOf(filters);
  const save = useApiMutation(async (q: NonNullable<typeof query>) => {
    const { data, error, response } = await api.GET('/v1/audit/export', { params: { query: q }, parseAs: 'blob' });
    if (!response.ok || !data) throw failureFrom(response.status, response.statusText, error);
    const url = URL.createObjectURL(data);
    const link = document.createElement('a');
    link.href = url;
    link.download = exportFileName(filters, new Date());
    document.body.append(link);
    link.click();
    link.remove();
    // The download has its own copy once started; the object URL can go.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  const busy = save.pending;
  const failure = save.failure;
  return (
    <>
      <button type="button" className="wf-button" onClick={() => query && save.run(query)} disabled={busy || !query}>
        {busy ? 'Exporting…' : 'Export (JSON lines)'}
      </button>
      {failure ? <ErrorNotice failure={failure} /> : null}
    </>
  );
}
