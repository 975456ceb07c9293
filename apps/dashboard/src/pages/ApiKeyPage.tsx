import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { formProblem } from '../api/errors';
import { useMe } from '../api/queries';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { ErrorNote, Loading } from '../components/Status';

/** Regenerates the API key (with the 2FA code when 2FA is on) and shows the new key once. */
export function ApiKeyPage() {
  const me = useMe();
  const [key, setKey] = useState<string | null>(null);
  const regenerate = useMutation({
    mutationFn: (code: string | null) => api.post('/v1/apikey/regenerate', code ? { headers: { 'X-TOTP-Code': code } } : {}),
    onSuccess: (answer) => setKey(answer.api_key),
  });
  if (!me.data) return me.error ? <ErrorNote error={me.error} /> : <Loading what="your account" />;
  const twoFactor = me.data.two_factor_enabled;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = twoFactor ? String(new FormData(event.currentTarget).get('code')).trim() : null;
    regenerate.mutate(code);
  };
  const problem = regenerate.error ? formProblem(regenerate.error, []) : null;
  return (
    <>
      <h1>API key</h1>
      <p>
        Your backend calls the API with this key in <code>Authorization: Bearer …</code>. Only a hash of it is stored, so it cannot be shown
        again: regenerate it to get a new one. The old key stops working at once, everywhere.
      </p>
      {key ? (
        <article className="key-shown">
          <Field label="API key" readOnly value={key} onFocus={(event) => event.currentTarget.select()} />
          <CopyButton text={key} />
          <p>
            <strong>This key is shown once.</strong> Copy it now and keep it in your backend’s secret store.
          </p>
        </article>
      ) : null}
      <form onSubmit={submit} noValidate>
        {twoFactor ? <Field label="Authentication code" name="code" autoComplete="one-time-code" required hint="The 6-digit code, or one of your recovery codes." /> : null}
        {problem ? <ErrorNote>{problem.message}</ErrorNote> : null}
        <button type="submit" aria-busy={regenerate.isPending} disabled={regenerate.isPending}>
          Regenerate key
        </button>
        <small> At most once every 15 minutes.</small>
      </form>
    </>
  );
}
