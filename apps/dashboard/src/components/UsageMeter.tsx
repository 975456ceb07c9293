/** Share of a limit at which the meter warns that the limit is near. */
export const NEAR_LIMIT = 0.8;

export type LimitState = 'ok' | 'near' | 'reached';

/** Where `used` stands against `limit`: reached at or over it, near from 80 %. */
export function limitState(used: number, limit: number): LimitState {
  if (used >= limit) return 'reached';
  return used >= limit * NEAR_LIMIT ? 'near' : 'ok';
}

interface UsageMeterProps {
  label: string;
  used: number;
  limit: number;
  /** What is counted, plural ("hashtags"). */
  unit: string;
}

/** A labelled bar of `used` against `limit`, with the numbers written out and a word when near or at the limit. */
export function UsageMeter({ label, used, limit, unit }: UsageMeterProps) {
  const state = limitState(used, limit);
  const shown = Number.isInteger(used) ? used.toLocaleString('en') : used.toFixed(1);
  return (
    <div className={`meter meter-${state}`}>
      <div className="meter-label">
        <span>{label}</span>
        <span>
          {shown} of {limit.toLocaleString('en')} {unit}
          {state === 'reached' ? ' — limit reached' : state === 'near' ? ' — near the limit' : ''}
        </span>
      </div>
      {/* The numbers are written out above; the bar repeats them for the eye only. */}
      <progress value={Math.min(used, limit)} max={limit} aria-hidden="true" />
    </div>
  );
}
