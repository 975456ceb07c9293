import { startLocalServer, type LocalServer, type Reply } from './local-server';

interface Block {
  type: string;
  text?: { text: string };
  elements?: { text?: string }[];
  image_url?: unknown;
  alt_text?: unknown;
}

export interface FakeSlack extends LocalServer {
  webhookUrl: string;
  archivedWebhookUrl: string;
  messages: { text?: string; blocks?: Block[] }[];
}

/** Block Kit's limits: section and context text ≤ 3,000; an image needs image_url ≤ 3,000 and a non-empty alt_text ≤ 2,000. */
function validBlock(block: Block): boolean {
  if (block.type === 'section') return (block.text?.text.length ?? 0) <= 3000;
  if (block.type === 'context') return (block.elements ?? []).every((element) => (element.text?.length ?? 0) <= 3000);
  if (block.type === 'image') {
    const { image_url: url, alt_text: alt } = block;
    return typeof url === 'string' && url !== '' && url.length <= 3000 && typeof alt === 'string' && alt !== '' && alt.length <= 2000;
  }
  return true;
}

// Slack answers incoming-webhook errors as plain-text codes (invalid_payload, no_service, …), as Slack documents.
const error = (status: number, code: string): Reply => ({ status, headers: { 'content-type': 'text/plain' }, body: code });

/** Slack downloads an image block's image before it posts the message; one it cannot download fails the message. */
async function downloads(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    await response.arrayBuffer();
    return response.ok && (response.headers.get('content-type') ?? '').startsWith('image/');
  } catch {
    return false;
  }
}

/**
 * A Slack incoming webhook on 127.0.0.1, with one live and one archived channel. Images of image blocks are
 * downloaded (so tests serve them locally), and one that cannot be is `invalid_blocks`, as Slack answers
 * "downloading image failed".
 */
export async function startFakeSlack(): Promise<FakeSlack> {
  const messages: FakeSlack['messages'] = [];
  const live = '/services/T000/B000/live';
  const archived = '/services/T000/B001/archived';
  const server = await startLocalServer(async (request) => {
    if (request.path === archived) return error(410, 'channel_is_archived');
    if (request.path !== live) return error(404, 'no_service');
    if (!String(request.headers['content-type']).startsWith('application/json')) return error(400, 'invalid_payload');
    let payload: FakeSlack['messages'][number];
    try {
      payload = JSON.parse(request.body) as FakeSlack['messages'][number];
    } catch {
      return error(400, 'invalid_payload');
    }
    if (!payload.text && !payload.blocks?.length) return error(400, 'no_text');
    if ((payload.blocks?.length ?? 0) > 50) return error(400, 'invalid_blocks');
    if (payload.blocks?.some((block) => !validBlock(block))) return error(400, 'invalid_blocks');
    for (const block of payload.blocks ?? []) {
      if (block.type === 'image' && !(await downloads(block.image_url as string))) return error(400, 'invalid_blocks');
    }
    messages.push(payload);
    return { status: 200, headers: { 'content-type': 'text/html' }, body: 'ok' };
  });
  return Object.assign(server, {
    webhookUrl: `${server.origin}${live}`,
    archivedWebhookUrl: `${server.origin}${archived}`,
    messages,
  });
}
