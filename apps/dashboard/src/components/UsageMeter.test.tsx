import { render, screen } from '@testing-library/react';
import { limitState, NEAR_LIMIT, UsageMeter } from './UsageMeter';

describe('limitState', () => {
  it.each([
    [0, 3, 'ok'],
    [2, 3, 'ok'],
    [7, 10, 'ok'],
    [8, 10, 'near'],
    [9, 10, 'near'],
    [10, 10, 'reached'],
    [11, 10, 'reached'],
    [799.9, 1000, 'ok'],
    [800, 1000, 'near'],
    [0, 0, 'reached'],
  ] as const)('%d of %d is %s', (used, limit, state) => {
    expect(limitState(used, limit)).toBe(state);
  });

  it('warns from 80 % of the limit', () => {
    expect(NEAR_LIMIT).toBe(0.8);
  });
});

describe('UsageMeter', () => {
  it('writes the numbers out and adds no word below 80 %', () => {
    const { container } = render(<UsageMeter label="Tracks on your plan" used={1} limit={3} unit="hashtags" />);
    expect(container).toHaveTextContent('Tracks on your plan1 of 3 hashtags');
    expect(container).not.toHaveTextContent(/limit/);
    // The bar repeats the written numbers for the eye only: hidden from the accessibility tree, so no control's
    // name ("Hashtag") is shared with it.
    const bar = container.querySelector('progress');
    expect(bar).toHaveAttribute('value', '1');
    expect(bar).toHaveAttribute('aria-hidden', 'true');
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(container.firstChild).toHaveClass('meter-ok');
  });

  it('says “near the limit” from 80 %', () => {
    const { container } = render(<UsageMeter label="Alerts this period" used={24_000} limit={25_000} unit="alerts" />);
    expect(container).toHaveTextContent('24,000 of 25,000 alerts — near the limit');
    expect(container.firstChild).toHaveClass('meter-near');
  });

  it('says “limit reached” at the limit, and its bar stops full when usage is over it', () => {
    const { container } = render(<UsageMeter label="Accounts" used={3} limit={2} unit="accounts" />);
    expect(container).toHaveTextContent('3 of 2 accounts — limit reached');
    const bar = container.querySelector('progress');
    expect(bar).toHaveAttribute('value', '2');
    expect(bar).toHaveAttribute('max', '2');
    expect(container.firstChild).toHaveClass('meter-reached');
  });

  it('shows a fractional usage to one decimal', () => {
    render(<UsageMeter label="Requests" used={2.345} limit={10} unit="per minute" />);
    expect(screen.getByText(/of 10 per minute/)).toHaveTextContent('2.3 of 10 per minute');
  });
});
