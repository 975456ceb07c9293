import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface DayCount {
  date: string;
  alerts: number;
}

const HEIGHT = 200;

/**
 * uPlot gives a y axis a fixed width unless told, and draws its labels right-aligned against the ticks, so a
 * label wider than that width loses its first digits (`10,000` read `0,000`). The width here is the widest
 * label's: uPlot writes them in 12px system-ui, whose digits are at most 0.64 em wide (DejaVu Sans, the common
 * Linux fallback), so 8 px a character keeps every label whole.
 */
const LABEL_CHAR_PX = 8;
const MIN_Y_AXIS_PX = 50;

/** The y axis's width in CSS pixels: its ticks, their gap and the widest of `labels` (none yet on the first pass). */
function yAxisSize(self: uPlot, labels: readonly string[] | null, axisIndex: number): number {
  const axis = self.axes[axisIndex];
  const widest = Math.max(0, ...(labels ?? []).map((label) => label.length));
  return Math.max(MIN_Y_AXIS_PX, Math.ceil((axis?.ticks?.size ?? 10) + (axis?.gap ?? 5) + widest * LABEL_CHAR_PX));
}

const DAY_S = 86_400;
/** Unix seconds of a day's UTC midnight. */
const dayStart = (iso: string) => Math.floor(Date.parse(iso) / 1000 / DAY_S) * DAY_S;

function chartOptions(width: number, range: [number, number]): uPlot.Options {
  const accent = getComputedStyle(document.documentElement).getPropertyValue('--pico-primary').trim() || '#0172ad';
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    // Days are UTC days (the API counts them so): the axis is labelled in UTC too, whatever the browser's zone.
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    cursor: { drag: { x: false, y: false } },
    // The whole period on the x axis (half a day of margin for the bars), not just the days that have data.
    scales: { x: { time: true, range: () => [range[0] - DAY_S / 2, range[1] + DAY_S / 2] }, y: { range: (_u, _min, max) => [0, Math.max(5, Math.ceil(max * 1.15))] } },
    axes: [{ space: 60 }, { size: yAxisSize }],
    series: [{}, { label: 'Alerts', stroke: accent, fill: `${accent}33`, width: 2, paths: uPlot.paths.bars?.({ size: [0.7, 40] }) }],
  };
}

/**
 * Alerts per day as a bar chart (uPlot, canvas), resized with its container. The same numbers are in a table for
 * screen readers and for anyone who wants the figures.
 */
export function AlertsChart({ days, periodStart, periodEnd }: { days: DayCount[]; periodStart: string; periodEnd: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element || days.length === 0) return undefined;
    const data: uPlot.AlignedData = [days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000), days.map((day) => day.alerts)];
    // The period's last day is the one before its (exclusive) end.
    const range: [number, number] = [dayStart(periodStart), dayStart(new Date(Date.parse(periodEnd) - 1).toISOString())];
    const plot = new uPlot(chartOptions(element.clientWidth || 600, range), data, element);
    const observer = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [days, periodStart, periodEnd]);
  const total = days.reduce((sum, day) => sum + day.alerts, 0);
  return (
    <figure>
      <div ref={holder} className="chart" role="img" aria-label={`Alerts per day: ${total} over ${days.length} days`} />
      <details>
        <summary>Alerts per day as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Alerts</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <td>{day.date}</td>
                <td>{day.alerts}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
