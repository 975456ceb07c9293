import { useId, type InputHTMLAttributes } from 'react';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  /** The API's complaint about this field; shown under it and announced with it. */
  error?: string | undefined;
  hint?: string;
}

/** A labelled input whose error sits next to it (aria-invalid, aria-describedby). */
export function Field({ label, error, hint, ...input }: FieldProps) {
  const id = useId();
  const note = `${id}-note`;
  return (
    <label htmlFor={id}>
      {label}
      <input id={id} {...input} aria-invalid={error ? true : undefined} aria-describedby={error || hint ? note : undefined} />
      {error || hint ? <small id={note}>{error ?? hint}</small> : null}
    </label>
  );
}
