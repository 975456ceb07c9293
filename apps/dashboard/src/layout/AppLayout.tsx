import { useState, type ReactNode } from 'react';
import { describeError } from '../api/errors';
import { Link, useLocation } from 'wouter';
import { useSession } from '../api/session';

const PAGES = [
  ['/', 'Overview'],
  ['/tracks', 'Tracks'],
  ['/accounts', 'Accounts'],
  ['/feed', 'Feed'],
  ['/notifications', 'Notifications'],
  ['/api-key', 'API key'],
  ['/security', 'Security'],
  ['/billing', 'Billing'],
] as const;

/** The signed-in frame: the pages' navigation (the current one marked) and sign-out. */
export function AppLayout({ children }: { children: ReactNode }) {
  const { session, signOut } = useSession();
  const [location, navigate] = useLocation();
  const [failure, setFailure] = useState<unknown>(null);
  const leave = async () => {
    setFailure(null);
    try {
      await signOut();
      navigate('/signin');
    } catch (error) {
      setFailure(error);
    }
  };
  return (
    <div className="app">
      <header className="app-header">
        <a href="#main" className="skip">
          Skip to content
        </a>
        <strong className="brand">Hashwatch</strong>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map(([href, name]) => (
              <li key={href}>
                <Link href={href} aria-current={location === href ? 'page' : undefined}>
                  {name}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>{session?.email}</span>
          <button type="button" className="outline secondary" onClick={() => void leave()}>
            Sign out
          </button>
          {failure ? <span role="alert">Not signed out: {describeError(failure)}</span> : null}
        </div>
      </header>
      <main id="main" className="container">
        {children}
      </main>
    </div>
  );
}
