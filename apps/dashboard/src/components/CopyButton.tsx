import { useState } from 'react';

/** Copies `text` to the clipboard and says so; where the clipboard is refused, says to copy by hand. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" className="secondary" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="copy-state">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy was refused: select the text and copy it' : ''}
      </span>
    </>
  );
}
