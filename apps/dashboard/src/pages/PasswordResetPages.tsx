import { useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api } from '../api/client';
import { formProblem, type FormProblem } from '../api/errors';
import { setFlash } from '../api/flash';
import { Field } from '../components/Field';
import { Done, ErrorNote } from '../components/Status';

/** Asks for a reset link; the answer is the same whether or not the email has an account. */
export function ForgotPasswordPage() {
  const [sent, setSent] = useState(false);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email'));
    setBusy(true);
    setProblem(null);
    try {
      await api.post('/v1/session/password-reset', { body: { email } });
      setSent(true);
    } catch (error) {
      setProblem(formProblem(error, ['email']));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="container narrow">
      <h1>Reset your password</h1>
      {sent ? (
        <Done>If that email has an account, a link to set a new password is on its way. It works once, for 30 minutes.</Done>
      ) : (
        <form onSubmit={(event) => void submit(event)} noValidate>
          <Field label="Email" name="email" type="email" autoComplete="username" required error={problem?.field === 'email' ? problem.message : undefined} />
          {problem && !problem.field ? <ErrorNote>{problem.message}</ErrorNote> : null}
          <button type="submit" aria-busy={busy} disabled={busy}>
            Send reset link
          </button>
        </form>
      )}
      <p>
        <Link href="/signin">Back to sign in</Link>
      </p>
    </main>
  );
}

/** The page a reset link opens: sets the new password with the link's one-time token. */
export function ResetPasswordPage() {
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const [, navigate] = useLocation();
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password'));
    setBusy(true);
    setProblem(null);
    try {
      await api.post('/v1/session/password-reset/confirm', { body: { token, password } });
      setFlash('Your password was changed. Sign in with the new one.');
      navigate('/signin');
    } catch (error) {
      setProblem(formProblem(error, ['password', 'token']));
      setBusy(false);
    }
  };
  return (
    <main className="container narrow">
      <h1>Choose a new password</h1>
      {token === '' ? (
        <ErrorNote>This page needs the link from the reset email. Ask for a new one.</ErrorNote>
      ) : (
        <form onSubmit={(event) => void submit(event)} noValidate>
          <Field label="New password" name="password" type="password" autoComplete="new-password" minLength={12} maxLength={200} required
            hint="12 to 200 characters. Every session of the account ends." error={problem?.field === 'password' ? problem.message : undefined} />
          {problem && problem.field !== 'password' ? (
            <ErrorNote>{problem.field === 'token' ? 'This link is expired or was already used. Ask for a new one.' : problem.message}</ErrorNote>
          ) : null}
          <button type="submit" aria-busy={busy} disabled={busy}>
            Set password
          </button>
        </form>
      )}
      <p>
        <Link href="/forgot-password">Ask for a new link</Link>
      </p>
    </main>
  );
}
