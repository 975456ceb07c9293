import { useId, useRef } from 'react';
import { renderTemplate, effectiveTemplate } from '@hashwatch/channels/template';
import type { FeedItem } from '../../api/client';

export const PLACEHOLDERS = ['{source}', '{author}', '{name}', '{text}', '{url}', '{hashtag}', '{account}'] as const;

/** What a sample alert looks like when no post was detected yet. */
const SAMPLE = {
  type: 'hashtag' as const, source: '#btc', hashtag: 'btc', account: '', author: '@satoshi', author_name: 'Satoshi',
  text: 'Chancellor on brink of second bailout for banks #btc', url: 'https://x.com/satoshi/status/1861234567890123456',
  posted_at: null, detected_at: new Date(0).toISOString(),
};

/** The alert a preview renders: the account's newest post, in the shape the notifier renders from. */
export function previewAlert(post: FeedItem | undefined) {
  if (!post) return SAMPLE;
  return {
    type: post.type, source: post.sources[0] ?? (post.hashtag ? `#${post.hashtag}` : `@${post.account ?? ''}`), hashtag: post.hashtag ?? '',
    account: post.account ?? '', author: post.author, author_name: post.author_name, text: post.text, url: post.url,
    posted_at: post.posted_at, detected_at: post.detected_at,
  };
}

/** What `template` sends for `post`, rendered by the notifier's own renderer; an empty template means the default card. */
export function templatePreview(template: string, post: FeedItem | undefined): string | null {
  const alert = previewAlert(post);
  const used = effectiveTemplate(template, alert);
  return used === '' ? null : renderTemplate(used, alert);
}

interface TemplateEditorProps {
  value: string;
  onChange: (value: string) => void;
  post: FeedItem | undefined;
  error?: string | undefined;
}

/** The template field, buttons that insert each placeholder at the cursor, and a live preview. */
export function TemplateEditor({ value, onChange, post, error }: TemplateEditorProps) {
  const id = useId();
  const area = useRef<HTMLTextAreaElement>(null);
  const insert = (placeholder: string) => {
    const element = area.current;
    const at = element ? element.selectionStart : value.length;
    const end = element ? element.selectionEnd : value.length;
    onChange(value.slice(0, at) + placeholder + value.slice(end));
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(at + placeholder.length, at + placeholder.length);
    });
  };
  const preview = templatePreview(value, post);
  return (
    <div className="template">
      <label htmlFor={id}>Template</label>
      <textarea id={id} ref={area} rows={3} value={value} onChange={(event) => onChange(event.currentTarget.value)}
        aria-invalid={error ? true : undefined} aria-describedby={`${id}-preview`} placeholder="Empty: the default card" />
      {error ? <small>{error}</small> : null}
      <div className="placeholders" role="group" aria-label="Insert a placeholder">
        {PLACEHOLDERS.map((placeholder) => (
          <button key={placeholder} type="button" className="outline secondary small" onClick={() => insert(placeholder)}>
            {placeholder}
          </button>
        ))}
      </div>
      <div id={`${id}-preview`} className="preview" aria-live="polite">
        <strong>Preview{post ? ' with your newest post' : ' with a sample post'}:</strong>
        {preview === null ? (
          <p>The default card: the matched source, the author’s handle and name, the post text and a link to it.</p>
        ) : (
          <pre>{preview}</pre>
        )}
      </div>
    </div>
  );
}
