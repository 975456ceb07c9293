import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, useRef, type ReactNode } from 'react';
import { api, HashwatchError, setCsrfToken, type Schemas } from './client';

export type Session = Schemas['Session'];

interface SessionState {
  /** undefined while the first read is under way (or failed: see `error`); null when signed out. */
  session: Session | null | undefined;
  /** Why the session could not be read (the gateway unreachable, a 5xx); retried by `refresh`. */
  error: unknown;
  /** Reads the session again (after a sign-in, or when a request answered 401). */
  refresh: () => Promise<void>;
  signOut: () => Promise<void>;
  /** Forgets the session and every answer of the account, after the server ended it (deletion, password change). */
  forget: () => void;
}

const SessionContext = createContext<SessionState | null>(null);

/** The session of the cookie, or null: 401 means signed out, any other failure is shown as an error. */
async function readSession(): Promise<Session | null> {
  try {
    const session = await api.get('/v1/session');
    setCsrfToken(session.csrf_token);
    return session;
  } catch (error) {
    if (error instanceof HashwatchError && error.status === 401) {
      setCsrfToken(undefined);
      return null;
    }
    throw error;
  }
}

/** Drops every cached answer but the session's: they belong to the account that was signed in. */
function dropAccountData(queryClient: QueryClient): void {
  queryClient.removeQueries({ predicate: (cached) => cached.queryKey[0] !== 'session' });
}

/**
 * Holds the signed-in session for every page. Whenever the signed-in account changes (signed out by the button, by
 * expiry or elsewhere, then someone signs in), the previous account's cached answers are dropped before any page
 * can show them.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const account = useRef<string | null | undefined>(undefined);
  const read = useCallback(async () => {
    const session = await readSession();
    const now = session?.account_id ?? null;
    if (account.current !== undefined && account.current !== now) dropAccountData(queryClient);
    account.current = now;
    return session;
  }, [queryClient]);
  const query = useQuery({ queryKey: ['session'], queryFn: read, staleTime: Infinity, retry: 1 });
  const refresh = useCallback(async () => {
    await queryClient.fetchQuery({ queryKey: ['session'], queryFn: read, staleTime: 0 });
  }, [queryClient, read]);
  const forget = useCallback(() => {
    setCsrfToken(undefined);
    account.current = null;
    // The session query is set (its observers re-render signed out), not removed: clear() would detach the
    // session's own observer, which then keeps showing the old session.
    queryClient.setQueryData(['session'], null);
    dropAccountData(queryClient);
  }, [queryClient]);
  const signOut = useCallback(async () => {
    try {
      await api.delete('/v1/session');
    } catch (error) {
      // Already ended (401) is signed out; anything else leaves the cookie valid, so the page must not pretend.
      if (!(error instanceof HashwatchError && error.status === 401)) throw error;
    }
    forget();
  }, [forget]);
  const value = useMemo<SessionState>(
    () => ({ session: query.data, error: query.error, refresh, signOut, forget }),
    [query.data, query.error, refresh, signOut, forget],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}
