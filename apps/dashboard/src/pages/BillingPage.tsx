import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { describeError } from '../api/errors';
import { setFlash } from '../api/flash';
import { useMe } from '../api/queries';
import { useSession } from '../api/session';
import { Field } from '../components/Field';
import { Done, ErrorNote, Loading } from '../components/Status';
import { formatDay } from '../format';


/**
 * Opens the provider's page (Stripe's customer portal) where the plan is changed or canceled. Asked on click: each
 * answer is a fresh portal session. Without a provider (the operator bills) it says whom to ask.
 */
export function PortalButton() {
  const portal = useMutation({
    mutationFn: () => api.post('/v1/billing/portal'),
    onSuccess: (answer) => {
      if (answer.url) window.location.assign(answer.url);
    },
  });
  return (
    <div className="portal">
      <button type="button" className="secondary" aria-busy={portal.isPending} disabled={portal.isPending} onClick={() => portal.mutate()}>
        Manage subscription
      </button>{' '}
      <small>Change plan, update the card or cancel, on the provider’s page.</small>
      {portal.error ? <ErrorNote error={portal.error} /> : null}
      {portal.data && !portal.data.url ? (
        <p role="status">This subscription is managed by the operator of this Hashwatch: ask them to change or cancel your plan.</p>
      ) : null}
    </div>
  );
}

/** Takes the plan's current limits (an operator may have changed the plan since the account's snapshot). */
function ResyncLimits() {
  const queryClient = useQueryClient();
  const resync = useMutation({
    mutationFn: () => api.post('/v1/me/resync-limits'),
    onSuccess: (me) => {
      queryClient.setQueryData(['me'], me);
      void queryClient.invalidateQueries({ queryKey: ['usage'] });
    },
  });
  return (
    <div className="resync">
      <button type="button" className="outline secondary" aria-busy={resync.isPending} disabled={resync.isPending} onClick={() => resync.mutate()}>
        Apply the plan’s current limits
      </button>{' '}
      <small>Limits are copied from the plan when you subscribe or change plan; this picks up later changes to it.</small>
      {resync.isSuccess ? <Done>Limits updated from the plan.</Done> : null}
      {resync.error ? <ErrorNote error={resync.error} /> : null}
    </div>
  );
}

function DeleteAccount({ email, twoFactor }: { email: string; twoFactor: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { forget } = useSession();
  const [mismatch, setMismatch] = useState(false);
  const remove = useMutation({
    mutationFn: (code: string | null) => api.delete('/v1/me', code ? { headers: { 'X-TOTP-Code': code } } : {}),
    onSuccess: async () => {
      dialog.current?.close();
      setFlash('Your account was deleted.');
      forget();
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const matches = String(form.get('confirm')).trim().toLowerCase() === email.toLowerCase();
    setMismatch(!matches);
    if (!matches) return;
    remove.mutate(twoFactor ? String(form.get('code')).trim() : null);
  };
  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete account</h2>
      <p>Deletes the account, its sources, feed, channels and deliveries for good, and cancels the subscription with the provider.</p>
      <button type="button" className="contrast" onClick={() => dialog.current?.showModal()}>
        Delete account
      </button>
      <dialog ref={dialog} aria-labelledby="delete-dialog-heading">
        <article>
          <h3 id="delete-dialog-heading">Delete {email} for good?</h3>
          <form onSubmit={submit} noValidate>
            <Field label="Confirm email" name="confirm" type="email" autoComplete="off" required hint="Type the account’s email to confirm."
              error={mismatch ? `Type ${email} exactly to confirm.` : undefined} />
            {twoFactor ? <Field label="Authentication code" name="code" autoComplete="one-time-code" required hint="The 6-digit code, or one of your recovery codes." /> : null}
            {remove.error ? <ErrorNote>{describeError(remove.error)}</ErrorNote> : null}
            <footer>
              <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
                Keep my account
              </button>
              <button type="submit" className="contrast" aria-busy={remove.isPending} disabled={remove.isPending}>
                Delete account permanently
              </button>
            </footer>
          </form>
        </article>
      </dialog>
    </section>
  );
}

/** Plan and period, the provider's page for changes, and account deletion. */
export function BillingPage() {
  const me = useMe();
  if (!me.data) return me.error ? <ErrorNote error={me.error} /> : <Loading what="your subscription" />;
  const { subscription } = me.data;
  return (
    <>
      <h1>Billing</h1>
      <section>
        <p className="big">{me.data.plan[0]?.toUpperCase() + me.data.plan.slice(1)} plan</p>
        <p>
          Subscription <strong>{subscription.status}</strong>; the current period runs from {formatDay(subscription.current_period_start, 'long')} to{' '}
          {formatDay(subscription.current_period_end, 'long')}.
        </p>
        <PortalButton />
        <ResyncLimits />
      </section>
      <DeleteAccount email={me.data.email} twoFactor={me.data.two_factor_enabled} />
    </>
  );
}
