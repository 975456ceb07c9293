import type { ReactNode } from 'react';
import { describeError } from '../api/errors';

/** A region announced while it loads (Pico draws a spinner for aria-busy). */
export function Loading({ what }: { what: string }) {
  return (
    <p aria-busy="true" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** A failure of the whole page or form, announced at once. */
export function ErrorNote({ error, children }: { error?: unknown; children?: ReactNode }) {
  if (!error && !children) return null;
  return (
    <p role="alert" className="error-note">
      {children ?? describeError(error)}
    </p>
  );
}

/** What an empty list says, and what to do about it. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A quiet confirmation after a change ("Saved"). */
export function Done({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="done">
      {children}
    </p>
  );
}
