import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
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

/** Holds the signed-in session for every page; signing out forgets every cached answer of the account. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ['session'], queryFn: readSession, staleTime: Infinity, retry: 1 });
  const refresh = useCallback(async () => {
    await queryClient.fetchQuery({ queryKey: ['session'], queryFn: readSession, staleTime: 0 });
  }, [queryClient]);
  const forget = useCallback(() => {
    setCsrfToken(undefined);
    // The session query is set (its observers re-render signed out); the account's other answers are dropped.
    // clear() would detach the session's own observer, which then keeps showing the old session.
    queryClient.setQueryData(['session'], null);
    queryClient.removeQueries({ predicate: (cached) => cached.queryKey[0] !== 'session' });
  }, [queryClient]);
  const signOut = useCallback(async () => {
    try {
      await api.delete('/v1/session');
    } finally {
      forget();
    }
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
