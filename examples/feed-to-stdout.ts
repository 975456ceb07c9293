// A backend that follows an account's Hashwatch feed: one JSON line per new post on stdout, resuming exactly
// where it stopped. Run it with `HASHWATCH_URL=… HASHWATCH_API_KEY=… npx tsx examples/feed-to-stdout.ts`
// (examples/README.md).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createClient, HashwatchError } from '@hashwatch/sdk';

/** Where the last printed post is: its `detected_at`, and its id for posts stored together (same detected_at). */
interface Position {
  since: string;
  since_id: string;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`feed-to-stdout: set ${name}\n`);
    process.exit(2);
  }
  return value;
}

function readPosition(file: string): Position | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Position;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Written to a temporary file and renamed over the old one: a crash leaves the old position or the new, never half. */
function savePosition(file: string, position: Position): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(position));
  renameSync(`${file}.tmp`, file);
}

async function main(): Promise<void> {
  const hw = createClient({ baseUrl: process.env.HASHWATCH_URL ?? 'http://localhost:3000', apiKey: required('HASHWATCH_API_KEY') });
  const stateFile = process.env.HASHWATCH_STATE_FILE ?? 'feed-to-stdout.state.json';
  const hashtag = process.env.HASHWATCH_HASHTAG;
  const position = readPosition(stateFile);

  // Ctrl-C or SIGTERM ends the watch after the post being printed, with its position saved.
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

  const posts = hw.watch({
    since: position?.since,
    sinceId: position?.since_id,
    query: hashtag ? { hashtag } : {},
    signal: stop.signal,
  });
  for await (const post of posts) {
    process.stdout.write(`${JSON.stringify(post)}\n`);
    savePosition(stateFile, { since: post.detected_at, since_id: post.id });
  }
}

main().catch((error: unknown) => {
  const reason = error instanceof HashwatchError ? `${error.status} ${error.code}: ${error.message}` : String(error);
  process.stderr.write(`feed-to-stdout: ${reason}\n`);
  process.exit(1);
});
