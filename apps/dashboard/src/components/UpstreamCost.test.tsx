import { render, screen } from '@testing-library/react';
import { UpstreamCost } from './UpstreamCost';

describe('UpstreamCost', () => {
  it('writes the totals out and lists each source, most read first, with its share of the reads', () => {
    render(
      <UpstreamCost
        upstream={{
          reads: 1234.5,
          requests: 40.25,
          by_source: [
            { source: '#btc', reads: 987.654321, requests: 30 },
            { source: '@alice', reads: 246.845679, requests: 10.25 },
            { source: '#eth', reads: 0, requests: 0 },
          ],
        }}
      />,
    );
    expect(screen.getByText(/X posts read/)).toHaveTextContent('1,234.5 X posts read and 40.25 search requests on your behalf this period.');
    const rows = screen.getAllByRole('row').map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
    expect(screen.getByRole('rowheader', { name: '@alice' })).toBeInTheDocument();
    expect(rows).toEqual([
      ['Source', 'Posts read', 'Share of reads', 'Requests'],
      ['#btc', '987.65', '80 %', '30'],
      ['@alice', '246.85', '20 %', '10.25'],
      ['#eth', '0', '0 %', '0'],
    ]);
  });

  it('says so when nothing was read this period', () => {
    render(<UpstreamCost upstream={{ reads: 0, requests: 0, by_source: [] }} />);
    expect(screen.getByText('No upstream reads yet this period.')).toBeInTheDocument();
    expect(screen.queryByRole('table')).toBeNull();
  });
});
