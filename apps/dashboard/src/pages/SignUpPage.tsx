import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { api } from '../api/client';
import { formProblem, type FormProblem } from '../api/errors';
import { useSession } from '../api/session';
import { Field, SelectField } from '../components/Field';
import { ErrorNote } from '../components/Status';

export const PLANS = [
  ['starter', 'Starter'],
  ['pro', 'Pro'],
  ['business', 'Business'],
] as const;

type Plan = (typeof PLANS)[number][0];

/**
 * Sign-up: starts a checkout, signs the new (pending) account in, then goes where it pays: the provider's page, or
 * the dashboard's own checkout page when the operator activates subscriptions.
 */
export function SignUpPage() {
  const { refresh } = useSession();
  const [, navigate] = useLocation();
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    setBusy(true);
    setProblem(null);
    try {
      const checkout = await api.post('/v1/api/checkout', { body: { email, password, plan: String(form.get('plan')) as Plan } });
      await api.post('/v1/session', { body: { email, password } });
      const target = new URL(checkout.url, window.location.href);
      // The dashboard's own checkout page (manual billing) is opened here, whatever origin PUBLIC_URL names: the
      // session cookie belongs to this one.
      if (target.origin === window.location.origin || target.pathname === `/checkout/${checkout.checkout_id}`) {
        await refresh();
        navigate(`/checkout/${checkout.checkout_id}`);
        return;
      }
      // The provider's page: left before the session is read, so no signed-in redirect races the navigation.
      if (target.protocol !== 'https:' && target.hostname !== 'localhost' && target.hostname !== '127.0.0.1') {
        throw new Error('The billing provider answered an address that is not https; the subscription was not started.');
      }
      window.location.assign(target.href);
    } catch (error) {
      setProblem(formProblem(error, ['email', 'password', 'plan']));
      setBusy(false);
    }
  };
  const fieldError = (name: string) => (problem?.field === name ? problem.message : undefined);
  return (
    <main className="container narrow">
      <h1>Create an account</h1>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Field label="Email" name="email" type="email" autoComplete="username" required error={fieldError('email')} />
        <Field label="Password" name="password" type="password" autoComplete="new-password" minLength={12} maxLength={200} required
          hint="12 to 200 characters." error={fieldError('password')} />
        <SelectField label="Plan" name="plan" defaultValue="pro" options={PLANS} error={fieldError('plan')} />
        {problem && !problem.field ? <ErrorNote>{problem.message}</ErrorNote> : null}
        <button type="submit" aria-busy={busy} disabled={busy}>
          Start subscription
        </button>
      </form>
      <p>
        Already subscribed? <Link href="/signin">Sign in</Link>
      </p>
    </main>
  );
}
