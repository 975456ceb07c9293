import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../api/client';
import { formProblem } from '../api/errors';
import { setFlash } from '../api/flash';
import { useMe } from '../api/queries';
import { useSession } from '../api/session';
import { Field } from '../components/Field';
import { Done, ErrorNote, Loading } from '../components/Status';

const codeOf = (event: FormEvent<HTMLFormElement>) => String(new FormData(event.currentTarget).get('code')).trim();

/** The recovery codes, shown once right after 2FA turned on, until the owner says they are saved. */
function RecoveryCodes({ codes, onSaved }: { codes: string[]; onSaved: () => void }) {
  return (
    <section aria-labelledby="recovery-codes-heading">
      <h3 id="recovery-codes-heading">Recovery codes</h3>
      <p>
        Save these codes somewhere apart from your phone. Each one works once in place of an authentication code, if the
        authenticator app is lost. <strong>They are not shown again.</strong>
      </p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" onClick={onSaved}>
        I have saved them
      </button>
    </section>
  );
}

function TwoFactor({ enabled }: { enabled: boolean }) {
  const queryClient = useQueryClient();
  const [setup, setSetup] = useState<Schemas['TwoFactorSetup'] | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['me'] });
  const start = useMutation({ mutationFn: () => api.post('/v1/2fa/enable', { body: {} }), onSuccess: (answer) => 'secret' in answer && setSetup(answer) });
  const confirm = useMutation({
    mutationFn: (code: string) => api.post('/v1/2fa/enable', { body: { code } }),
    onSuccess: async (answer) => {
      setSetup(null);
      if ('recovery_codes' in answer) setRecoveryCodes(answer.recovery_codes);
      await refresh();
    },
  });
  const disable = useMutation({ mutationFn: (code: string) => api.post('/v1/2fa/disable', { body: { code } }), onSuccess: refresh });
  const failure = start.error ?? confirm.error ?? disable.error;
  const problem = failure ? formProblem(failure, ['code']) : null;
  if (recoveryCodes) return <RecoveryCodes codes={recoveryCodes} onSaved={() => setRecoveryCodes(null)} />;
  if (enabled) {
    return (
      <form onSubmit={(event) => { event.preventDefault(); disable.mutate(codeOf(event)); }} noValidate>
        <p>
          <strong>2FA is on.</strong> Sign-in, key regeneration and account deletion ask for a code from your authenticator app.
        </p>
        <Field label="Authentication code" name="code" autoComplete="one-time-code" required hint="The 6-digit code, or one of your recovery codes."
          error={problem?.field ? problem.message : undefined} />
        {problem && !problem.field ? <ErrorNote>{problem.message}</ErrorNote> : null}
        <button type="submit" className="secondary" aria-busy={disable.isPending} disabled={disable.isPending}>
          Disable 2FA
        </button>
      </form>
    );
  }
  return (
    <>
      <p>2FA is off. Turn it on to ask for a code from an authenticator app at sign-in and before sensitive actions.</p>
      {setup ? (
        <form onSubmit={(event) => { event.preventDefault(); confirm.mutate(codeOf(event)); }} noValidate>
          <img src={setup.qr_code} alt="QR code for your authenticator app" width={200} height={200} />
          <Field label="Secret" readOnly value={setup.secret} onFocus={(event) => event.currentTarget.select()}
            hint="Scan the code, or type this secret into the app. Then enter the code it shows." />
          <Field label="Authentication code" name="code" inputMode="numeric" autoComplete="one-time-code" required error={problem?.field ? problem.message : undefined} />
          {problem && !problem.field ? <ErrorNote>{problem.message}</ErrorNote> : null}
          <button type="submit" aria-busy={confirm.isPending} disabled={confirm.isPending}>
            Turn on 2FA
          </button>
        </form>
      ) : (
        <>
          {problem ? <ErrorNote>{problem.message}</ErrorNote> : null}
          <button type="button" aria-busy={start.isPending} disabled={start.isPending} onClick={() => start.mutate()}>
            Enable 2FA
          </button>
        </>
      )}
    </>
  );
}

function PasswordChange() {
  const { forget } = useSession();
  const change = useMutation({
    mutationFn: (body: { current_password: string; new_password: string }) => api.post('/v1/me/password', { body }),
    // Every session ends with a password change, this one too.
    onSuccess: () => {
      setFlash('Your password was changed. Sign in with the new one.');
      forget();
    },
  });
  const problem = change.error ? formProblem(change.error, ['current_password', 'new_password']) : null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    change.mutate({ current_password: String(form.get('current')), new_password: String(form.get('new')) });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Field label="Current password" name="current" type="password" autoComplete="current-password" required error={problem?.field === 'current_password' ? problem.message : undefined} />
      <Field label="New password" name="new" type="password" autoComplete="new-password" minLength={12} maxLength={200} required hint="12 to 200 characters. Every session ends, this one too."
        error={problem?.field === 'new_password' ? problem.message : undefined} />
      {problem && !problem.field ? <ErrorNote>{problem.message}</ErrorNote> : null}
      {change.isSuccess ? <Done>Password changed.</Done> : null}
      <button type="submit" aria-busy={change.isPending} disabled={change.isPending}>
        Change password
      </button>
    </form>
  );
}

/** Two-factor authentication (enrolment with the QR code, disabling) and the password. */
export function SecurityPage() {
  const me = useMe();
  return (
    <>
      <h1>Security</h1>
      <section>
        <h2>Two-factor authentication</h2>
        {me.data ? <TwoFactor enabled={me.data.two_factor_enabled} /> : me.error ? <ErrorNote error={me.error} /> : <Loading what="your 2FA state" />}
      </section>
      <section>
        <h2>Password</h2>
        <PasswordChange />
      </section>
    </>
  );
}
