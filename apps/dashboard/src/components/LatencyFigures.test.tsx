import { render, screen, within } from '@testing-library/react';
import { formatDelay, LatencyFigures } from './LatencyFigures';

describe('formatDelay', () => {
  it.each([
    [null, '—'],
    [0, '0 ms'],
    [850, '850 ms'],
    [1_000, '1.0 s'],
    [2_449, '2.4 s'],
    [59_949, '59.9 s'],
    [210_000, '3.5 min'],
  ] as const)('writes %p as %s', (ms, text) => {
    expect(formatDelay(ms)).toBe(text);
  });
});

describe('LatencyFigures', () => {
  it('shows the median and 95th percentile of each step in its own row', () => {
    render(<LatencyFigures latency={{ detect_p50_ms: 2_400, detect_p95_ms: 9_800, deliver_p50_ms: 350, deliver_p95_ms: 1_900 }} />);
    const detect = screen.getByRole('row', { name: /Posted → detected/ });
    expect(within(detect).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['2.4 s', '9.8 s']);
    const deliver = screen.getByRole('row', { name: /Detected → delivered/ });
    expect(within(deliver).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['350 ms', '1.9 s']);
    expect(screen.getByRole('columnheader', { name: 'Median' })).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: '95th percentile' })).toBeInTheDocument();
  });

  it('shows a dash for a step without a sample', () => {
    render(<LatencyFigures latency={{ detect_p50_ms: 1_200, detect_p95_ms: 4_000, deliver_p50_ms: null, deliver_p95_ms: null }} />);
    const deliver = screen.getByRole('row', { name: /Detected → delivered/ });
    expect(within(deliver).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['—', '—']);
    expect(screen.getByText(/nothing to measure yet/)).toBeInTheDocument();
  });
});
