import { jsonReply, startLocalServer, type LocalServer, type Reply } from './local-server';

export interface FakeDiscord extends LocalServer {
  /** `${origin}/api/webhooks/<id>/<token>` of the one live webhook. */
  webhookUrl: string;
  /** Message payloads Discord accepted. */
  messages: Record<string, unknown>[];
  rateLimitNext(retryAfterSeconds: number): void;
}

interface Embed {
  title?: string;
  description?: string;
  footer?: { text?: string };
  author?: { name?: string };
  fields?: { name?: string; value?: string }[];
  image?: { url?: unknown };
}

function wellFormedUrl(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

const invalidForm = (field: string, message: string): Reply =>
  jsonReply(400, { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message }] } } });

/** Checks a payload against Discord's documented limits (message, embed and username lengths). */
function validate(payload: Record<string, unknown>): Reply | null {
  const username = payload.username;
  if (username !== undefined) {
    if (typeof username !== 'string' || username.length < 1 || username.length > 80) return invalidForm('username', 'Must be between 1 and 80 in length.');
    if (/discord|clyde/i.test(username)) return invalidForm('username', 'Username cannot contain "discord" or "clyde"');
  }
  const content = payload.content;
  const embeds = (payload.embeds ?? []) as Embed[];
  if ((typeof content !== 'string' || content === '') && embeds.length === 0) {
    return jsonReply(400, { message: 'Cannot send an empty message', code: 50006 });
  }
  if (typeof content === 'string' && content.length > 2000) return invalidForm('content', 'Must be 2000 or fewer in length.');
  if (embeds.length > 10) return invalidForm('embeds', 'Must be 10 or fewer in length.');
  let total = 0;
  for (const embed of embeds) {
    if ((embed.title ?? '').length > 256) return invalidForm('embeds.0.title', 'Must be 256 or fewer in length.');
    if ((embed.description ?? '').length > 4096) return invalidForm('embeds.0.description', 'Must be 4096 or fewer in length.');
    const fields = embed.fields ?? [];
    if (fields.length > 25) return invalidForm('embeds.0.fields', 'Must be 25 or fewer in length.');
    if (fields.some((field) => !field.name || (field.name ?? '').length > 256)) return invalidForm('embeds.0.fields.0.name', 'Must be between 1 and 256 in length.');
    if (fields.some((field) => !field.value || (field.value ?? '').length > 1024)) return invalidForm('embeds.0.fields.0.value', 'Must be between 1 and 1024 in length.');
    if ((embed.footer?.text ?? '').length > 2048) return invalidForm('embeds.0.footer.text', 'Must be 2048 or fewer in length.');
    if (embed.image !== undefined && !wellFormedUrl(embed.image.url)) return invalidForm('embeds.0.image.url', 'Not a well formed URL.');
    total += [embed.title, embed.description, embed.footer?.text, embed.author?.name, ...(embed.fields ?? []).flatMap((f) => [f.name, f.value])]
      .map((part) => (part ?? '').trim().length)
      .reduce((sum, length) => sum + length, 0);
  }
  if (total > 6000) return invalidForm('embeds', 'Embed size exceeds maximum size of 6000');
  return null;
}

/** Discord's execute-webhook endpoint on 127.0.0.1. */
export async function startFakeDiscord(): Promise<FakeDiscord> {
  const messages: Record<string, unknown>[] = [];
  let rateLimit: number | undefined;
  const livePath = '/api/webhooks/1234567890/live-token';
  const server = await startLocalServer((request) => {
    const [path, query = ''] = request.path.split('?');
    if (path !== livePath) return jsonReply(404, { message: 'Unknown Webhook', code: 10015 });
    if (rateLimit !== undefined) {
      const retryAfter = rateLimit;
      rateLimit = undefined;
      return jsonReply(429, { message: 'You are being rate limited.', retry_after: retryAfter, global: false }, { 'retry-after': String(Math.ceil(retryAfter)) });
    }
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      return jsonReply(400, { message: 'The request body contains invalid JSON.', code: 50109 });
    }
    const invalid = validate(payload);
    if (invalid) return invalid;
    messages.push(payload);
    // wait=true: the saved Message object; otherwise 204 No Content.
    return new URLSearchParams(query).get('wait') === 'true'
      ? jsonReply(200, { id: String(messages.length), content: payload.content ?? '', embeds: payload.embeds ?? [] })
      : { status: 204 };
  });
  return Object.assign(server, {
    webhookUrl: `${server.origin}${livePath}`,
    messages,
    rateLimitNext(retryAfterSeconds: number) {
      rateLimit = retryAfterSeconds;
    },
  });
}
