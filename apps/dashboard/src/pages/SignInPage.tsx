import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { api, HashwatchError } from '../api/client';
import { formProblem, type FormProblem } from '../api/errors';
import { clearFlash, peekFlash } from '../api/flash';
import { useSession } from '../api/session';
import { Field } from '../components/Field';
import { Done, ErrorNote } from '../components/Status';

/** Sign-in by email and password, then, for an account with 2FA, the code step with the login token it answered. */
export function SignInPage() {
  const { refresh } = useSession();
  const [, navigate] = useLocation();
  const [flash] = useState(peekFlash);
  useEffect(clearFlash, []);
  const [loginToken, setLoginToken] = useState<string | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (event: FormEvent<HTMLFormElement>, step: (form: FormData) => Promise<void>) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await step(new FormData(event.currentTarget));
    } catch (error) {
      setProblem(formProblem(error, ['email', 'password', 'code']));
    } finally {
      setBusy(false);
    }
  };
  const finish = async () => {
    await refresh();
    navigate('/');
  };
  const signIn = (event: FormEvent<HTMLFormElement>) =>
    run(event, async (form) => {
      const result = await api.post('/v1/session', { body: { email: String(form.get('email')), password: String(form.get('password')) } });
      if (result.two_factor_required) setLoginToken(result.login_token);
      else await finish();
    });
  const verify = (event: FormEvent<HTMLFormElement>) =>
    run(event, async (form) => {
      try {
        await api.post('/v1/2fa/login', { body: { login_token: loginToken ?? '', code: String(form.get('code')).trim() } });
      } catch (error) {
        // The sign-in's 2FA step lives 5 minutes and ends with it: back to the password, saying why.
        if (error instanceof HashwatchError && error.status === 401) {
          setLoginToken(null);
          throw new Error('The sign-in took too long or was already used. Enter your password again.', { cause: error });
        }
        throw error;
      }
      await finish();
    });

  return (
    <main className="container narrow">
      <h1>Sign in</h1>
      {flash ? <Done>{flash}</Done> : null}
      {loginToken === null ? (
        <form key="password" onSubmit={(event) => void signIn(event)} noValidate>
          <Field label="Email" name="email" type="email" autoComplete="username" required error={problem?.field === 'email' ? problem.message : undefined} />
          <Field label="Password" name="password" type="password" autoComplete="current-password" required error={problem?.field === 'password' ? problem.message : undefined} />
          {problem && !problem.field ? <ErrorNote>{problem.message}</ErrorNote> : null}
          <button type="submit" aria-busy={busy} disabled={busy}>
            Sign in
          </button>
        </form>
      ) : (
        <form key="code" onSubmit={(event) => void verify(event)} noValidate>
          <p>Your account has two-factor authentication. Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
          <Field label="Authentication code" name="code" autoComplete="one-time-code" required autoFocus
            error={problem?.field === 'code' ? problem.message : undefined} />
          {problem && problem.field !== 'code' ? <ErrorNote>{problem.message}</ErrorNote> : null}
          <button type="submit" aria-busy={busy} disabled={busy}>
            Verify
          </button>
        </form>
      )}
      <p>
        <Link href="/signup">Create an account</Link> · <Link href="/forgot-password">Forgot your password?</Link>
      </p>
    </main>
  );
}
