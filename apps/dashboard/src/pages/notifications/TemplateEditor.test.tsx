import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import type { FeedItem } from '../../api/client';
import { PLACEHOLDERS, previewAlert, TemplateEditor, templatePreview } from './TemplateEditor';

const accountPost: FeedItem = {
  id: 'post_1', type: 'account', hashtag: null, account: 'alice', sources: ['@alice'], matched_by: 'author', author: '@alice', author_name: 'Alice',
  text: 'Shipping v2 today', url: 'https://x.com/alice/status/42', posted_at: '2026-11-22T01:00:00.000Z',
  detected_at: '2026-11-22T01:00:05.000Z', urls: [], media: [], quoted: null, lang: null, edited_at: null, deleted: false, engagement: null,
};

describe('previewAlert', () => {
  it('is a sample #btc post while the account has no post', () => {
    expect(previewAlert(undefined)).toMatchObject({ type: 'hashtag', source: '#btc', hashtag: 'btc', account: '', author: '@satoshi', author_name: 'Satoshi' });
  });

  it('is the newest post in the notifier’s shape: its first source, and empty strings for what it lacks', () => {
    expect(previewAlert(accountPost)).toEqual({
      type: 'account', source: '@alice', hashtag: '', account: 'alice', author: '@alice', author_name: 'Alice', text: 'Shipping v2 today',
      url: 'https://x.com/alice/status/42', posted_at: '2026-11-22T01:00:00.000Z', detected_at: '2026-11-22T01:00:05.000Z',
    });
  });

  it('names the source from the hashtag or the account when the post lists none', () => {
    expect(previewAlert({ ...accountPost, sources: [] }).source).toBe('@alice');
    expect(previewAlert({ ...accountPost, type: 'hashtag', hashtag: 'eth', account: null, sources: [] }).source).toBe('#eth');
  });
});

describe('templatePreview', () => {
  it('fills every placeholder from the post', () => {
    expect(templatePreview('{source} {author} ({name}): {text} {url} [{hashtag}|{account}]', accountPost)).toBe(
      '@alice @alice (Alice): Shipping v2 today https://x.com/alice/status/42 [|alice]',
    );
  });

  it('keeps braces that are no placeholder as written, and does not expand a placeholder inside a value', () => {
    expect(templatePreview('{unknown} {text}', { ...accountPost, text: 'say {url}' })).toBe('{unknown} say {url}');
  });

  it('renders the sample post when there is none', () => {
    expect(templatePreview('{author}: {text}', undefined)).toBe('@satoshi: Chancellor on brink of second bailout for banks #btc');
  });

  it('is null (the default card) for an empty template, and for one that renders to nothing but blanks', () => {
    expect(templatePreview('', accountPost)).toBeNull();
    expect(templatePreview('  {hashtag} ', accountPost)).toBeNull();
  });
});

function Harness({ initial = '', post }: { initial?: string; post?: FeedItem }) {
  const [value, setValue] = useState(initial);
  return <TemplateEditor value={value} onChange={setValue} post={post} />;
}

const previewOf = () => screen.getByText(/^Preview/).parentElement;

it('shows the default card’s description, with a sample post, while the template is empty', () => {
  render(<Harness />);
  expect(previewOf()).toHaveTextContent('Preview with a sample post:');
  expect(previewOf()).toHaveTextContent('The default card: the matched source, the author’s handle and name, the post text and a link to it.');
  expect(screen.getByLabelText('Template')).toHaveAccessibleDescription(/The default card/);
});

it('updates the preview as the template is typed, with the newest post', async () => {
  const user = userEvent.setup();
  render(<Harness post={accountPost} />);
  expect(previewOf()).toHaveTextContent('Preview with your newest post:');
  await user.type(screen.getByLabelText('Template'), 'New from {{author}');
  expect(previewOf()).toHaveTextContent('New from @alice');
  await user.type(screen.getByLabelText('Template'), ': {{text}');
  expect(previewOf()?.querySelector('pre')).toHaveTextContent('New from @alice: Shipping v2 today');
  await user.clear(screen.getByLabelText('Template'));
  expect(previewOf()).toHaveTextContent('The default card');
});

it('has a button for every placeholder, inserting it at the cursor (replacing a selection) and moving the cursor after it', async () => {
  const user = userEvent.setup();
  render(<Harness post={accountPost} />);
  const group = screen.getByRole('group', { name: 'Insert a placeholder' });
  expect([...group.querySelectorAll('button')].map((button) => button.textContent)).toEqual([...PLACEHOLDERS]);
  const area = screen.getByLabelText<HTMLTextAreaElement>('Template');
  await user.type(area, 'New: ');

  await user.click(screen.getByRole('button', { name: '{text}' }));
  expect(area).toHaveValue('New: {text}');
  // The editor gives the focus back on the next frame, the cursor after what it inserted.
  await vi.waitFor(() => expect(area).toHaveFocus());
  expect([area.selectionStart, area.selectionEnd]).toEqual([11, 11]);

  // Selects "New" with the mouse.
  await user.pointer([{ target: area, offset: 0, keys: '[MouseLeft>]' }, { offset: 3 }, { keys: '[/MouseLeft]' }]);
  await user.click(screen.getByRole('button', { name: '{author}' }));
  expect(area).toHaveValue('{author}: {text}');
  await vi.waitFor(() => expect(area).toHaveFocus());
  expect([area.selectionStart, area.selectionEnd]).toEqual([8, 8]);

  await user.keyboard(' says');
  expect(area).toHaveValue('{author} says: {text}');
  expect(previewOf()).toHaveTextContent('@alice says: Shipping v2 today');
});
