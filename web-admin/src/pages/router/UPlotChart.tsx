import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { valuesIn, type ChartColumns } from './telemetry-charts.js';

const HEIGHT = 180;
const DARK = '(prefers-color-scheme: dark)';

/** The theme's colours for charts, read from the CSS variables (router.css), so both themes keep their contrast. */
function palette(): { lines: string[]; axis: string; grid: string } {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return {
    lines: [1, 2, 3, 4, 5, 6, 7, 8].map((i) => v(`--chart-${i}`) || '#1d5fd1'),
    axis: v('--text-muted') || '#4f5a67',
    grid: v('--border') || '#d5d9df',
  };
}

/** Follows the system's light/dark preference, so the chart is drawn again in the other colours. */
function useColorScheme(): boolean {
  const [dark, setDark] = useState(() => window.matchMedia(DARK).matches);
  useEffect(() => {
    const query = window.matchMedia(DARK);
    const onChange = () => setDark(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return dark;
}

/**
 * One uPlot line chart over time. Created once per theme and set of lines; new data of the same
 * lines is only `setData` (a refresh does not rebuild the canvas); it follows its box's width.
 */
export function UPlotChart({ title, columns, unit }: { title: string; columns: ChartColumns; unit: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  // The chart is built from the latest columns, but rebuilt only when their shape changes.
  const latest = useRef(columns);
  useEffect(() => {
    latest.current = columns;
  });
  const dark = useColorScheme();
  const shape = columns.labels.join('|');
  const count = valuesIn(columns);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const { labels, data } = latest.current;
    const colours = palette();
    const axis = { stroke: colours.axis, grid: { stroke: colours.grid, width: 1 }, ticks: { stroke: colours.grid } };
    const plot = new uPlot(
      {
        width: Math.max(200, element.clientWidth),
        height: HEIGHT,
        series: [
          {},
          ...labels.map((label, i) => ({
            label,
            stroke: colours.lines[i % colours.lines.length],
            width: 1.5,
            spanGaps: false,
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${Number(v.toPrecision(4))} ${unit}`),
          })),
        ],
        axes: [axis, { ...axis, size: 56 }],
        scales: { x: { time: true } },
        cursor: { drag: { x: false, y: false } },
      },
      data as uPlot.AlignedData,
      element,
    );
    chart.current = plot;
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(200, element.clientWidth), height: HEIGHT }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
      chart.current = null;
    };
    // Rebuilt only when the lines or the theme change; data alone goes through setData below.
  }, [shape, dark, unit]);

  useEffect(() => {
    chart.current?.setData(columns.data as uPlot.AlignedData);
  }, [columns]);

  return (
    <figure className="wf-chart" data-values={count} aria-label={`${title}: ${count} values`}>
      <figcaption className="wf-chart__title">{title}</figcaption>
      {count === 0 ? <p className="wf-chart__empty">No data in this range.</p> : null}
      <div ref={box} className="wf-chart__plot" />
    </figure>
  );
}
