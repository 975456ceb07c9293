import { render, waitFor } from '@testing-library/react';
import { AlertsChart } from './AlertsChart';

interface DrawnText {
  text: string;
  x: number;
  align: string;
}

/** Widths of uPlot's 12px axis font: DejaVu Sans, the sans-serif Debian's browsers fall back to (a digit 0.636 em, a comma 0.318 em). */
const textWidth = (text: string) => [...text].reduce((sum, char) => sum + (/\d/.test(char) ? 7.63 : char === ',' ? 3.81 : 7.2), 0);

/**
 * A 2D context that keeps every fillText with the alignment it was drawn with and measures text as a browser
 * would; everything else is accepted and draws nothing (as in test-setup.ts).
 */
function recordingContext(drawn: DrawnText[]): CanvasRenderingContext2D {
  const state: Record<PropertyKey, unknown> = { textAlign: 'start' };
  const inert: object = new Proxy(function inertValue() {}, { get: () => inert, apply: () => inert });
  return new Proxy({} as CanvasRenderingContext2D, {
    get: (_target, key) => {
      if (key === 'fillText') return (text: string, x: number) => drawn.push({ text, x, align: String(state.textAlign) });
      if (key === 'measureText') return (text: string) => ({ width: textWidth(text) });
      if (key in state) return state[key];
      return inert;
    },
    set: (_target, key, value) => {
      state[key] = value;
      return true;
    },
  });
}

/** Renders the chart and answers the y-axis labels it drew, once it drew them. */
async function yLabelsOf(maxAlerts: number): Promise<DrawnText[]> {
  const drawn: DrawnText[] = [];
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(() => recordingContext(drawn) as never);
  render(
    <AlertsChart
      days={[
        { date: '2026-11-01', alerts: 12 },
        { date: '2026-11-02', alerts: maxAlerts },
      ]}
      periodStart="2026-11-01T00:00:00Z"
      periodEnd="2026-11-03T00:00:00Z"
    />,
  );
  // The y axis sits on the left: uPlot draws its labels right-aligned, ending at the tick.
  const labels = () => drawn.filter((label) => label.align === 'right');
  await waitFor(() => expect(labels().length).toBeGreaterThan(1));
  return labels();
}

describe('AlertsChart', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    [10_000, '10,000'],
    [1_234_567, '1,000,000'],
  ])('draws every y-axis label whole, right of the canvas edge, when the busiest day has %d alerts', async (maxAlerts, widest) => {
    const labels = await yLabelsOf(maxAlerts);
    expect(labels.map((label) => label.text)).toContain(widest);
    const cut = labels.filter((label) => label.x - textWidth(label.text) < 0).map((label) => label.text);
    expect(cut).toEqual([]);
  });
});
