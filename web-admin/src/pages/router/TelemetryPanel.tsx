import { useMemo } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSearchParams } from '../../app/navigation.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Loading } from '../../components/Loading.js';
import { Panel } from './Panel.js';
import { flowColumns, memoryColumns, packetColumns, rangeOf, rangeQuery, RANGES } from './telemetry-charts.js';
import { UPlotChart } from './UPlotChart.js';

/**
 * Live counters over time: packets seen / rewritten per program, offloaded flows, agent memory.
 * The range is in the query string (`?range=7d`, a link keeps it) and the charts ask again
 * every refresh interval of the range while the tab is visible.
 */
export function TelemetryPanel({ id }: { id: string }) {
  const { api } = useSignedIn();
  const [search, setSearch] = useSearchParams();
  const range = rangeOf(search.get('range'));
  // Read again every refresh interval of the range while the tab is visible (the query pauses in the background).
  const series = useApiQuery(
    queryKeys.routerPart(id, 'telemetry', range.id),
    () =>
      unwrap(api.GET('/v1/routers/{id}/telemetry', { params: { path: { id }, query: rangeQuery(range, Date.now()) } })),
    { refetchEvery: range.refreshMs, keepPrevious: true },
  );
  const points = series.data?.points;
  const charts = useMemo(
    () =>
      points ? { packets: packetColumns(points), flows: flowColumns(points), memory: memoryColumns(points) } : null,
    [points],
  );
  const choose = (next: string) => {
    const params = new URLSearchParams(search);
    if (next === RANGES[0]!.id) params.delete('range');
    else params.set('range', next);
    setSearch(params);
  };
  return (
    <Panel
      title="Counters over time"
      wide
      actions={
        <div className="wf-segmented" role="group" aria-label="Time range">
          {RANGES.map((r) => (
            <button
              key={r.id}
              type="button"
              className="wf-button wf-button--small"
              aria-pressed={r.id === range.id}
              onClick={() => choose(r.id)}
            >
              {r.label}
            </button>
          ))}
        </div>
      }
    >
      {series.failure ? <ErrorNotice failure={series.failure} onRetry={series.retry} /> : null}
      {series.loading && !series.data ? <Loading what="Loading counters" /> : null}
      {series.data && charts ? (
        <>
          <p className="wf-muted">
            {series.data.points.length} points of{' '}
            {series.data.step >= 3600 ? `${series.data.step / 3600} h` : `${series.data.step / 60} min`} (
            {series.data.resolution} resolution), refreshed every {range.refreshMs / 1000} s
          </p>
          <div className="wf-charts">
            <UPlotChart title="Packets per second, per program" columns={charts.packets} unit="pkt/s" />
            <UPlotChart title="Offloaded flows" columns={charts.flows} unit="flows" />
            <UPlotChart title="Agent memory" columns={charts.memory} unit="MiB" />
          </div>
        </>
      ) : null}
    </Panel>
  );
}
