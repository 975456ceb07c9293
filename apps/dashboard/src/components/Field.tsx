import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  /** The API's complaint about this field; shown under it and announced with it. */
  error?: string | undefined;
  hint?: string;
}

/** What a labelled control gets from its frame: its id, and its error or hint as its description. */
interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/**
 * A label, the control it names, and the control's error or hint under it (aria-invalid, aria-describedby). The hint
 * and the error are outside the label element, so the control's accessible name is exactly `label` (outside browser
 * tests find fields by it).
 */
function FieldFrame({ label, error, hint, control }: { label: string; error?: string | undefined; hint?: string | undefined; control: (props: ControlProps) => ReactNode }) {
  const id = useId();
  const note = `${id}-note`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': error || hint ? note : undefined })}
      {error ? (
        <small id={note} role="alert">
          {error}
        </small>
      ) : hint ? (
        <small id={note}>{hint}</small>
      ) : null}
    </div>
  );
}

/** A labelled input whose error sits next to it. */
export function Field({ label, error, hint, ...input }: FieldProps) {
  return <FieldFrame label={label} error={error} hint={hint} control={(props) => <input {...input} {...props} />} />;
}

interface SelectFieldProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> {
  label: string;
  options: readonly (readonly [value: string, text: string])[];
  error?: string | undefined;
}

/** A labelled select; its accessible name is exactly `label` (a label wrapped around it would add the chosen option). */
export function SelectField({ label, options, error, ...select }: SelectFieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...select} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-note` : undefined}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      {error ? (
        <small id={`${id}-note`} role="alert">
          {error}
        </small>
      ) : null}
    </div>
  );
}

interface TextAreaFieldProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> {
  label: string;
  error?: string | undefined;
  hint?: string;
}

/** A labelled text area, its error and hint beside it as {@link Field} has them. */
export function TextAreaField({ label, error, hint, ...area }: TextAreaFieldProps) {
  return <FieldFrame label={label} error={error} hint={hint} control={(props) => <textarea {...area} {...props} />} />;
}
