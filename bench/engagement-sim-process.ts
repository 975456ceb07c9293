// The X simulator in a process of its own for bench/engagement-cycle.ts (X is another machine in production:
// its serialising is not the poller's CPU). Started with fork(); speaks a tiny IPC protocol:
//   parent → { type: 'posts', count }            child → { type: 'posts', ids }
//   parent → { type: 'likes', changes: [{ id, usernames?, anonymous? }] }   child → { type: 'done' }
//   parent → { type: 'retweets', changes }        child → { type: 'done' }
//   parent → { type: 'calls' }                    child → { type: 'calls', calls: { endpoint: requests } }
//   parent → { type: 'cpu' }                      child → { type: 'cpu', seconds }   (CPU time used so far)
import { createSimulator, serveSimulator } from '@hashwatch/x-simulator';

interface Change {
  id: string;
  usernames?: string[];
  anonymous?: number;
}
type Message = { type: 'posts'; count: number } | { type: 'likes' | 'retweets'; changes: Change[] } | { type: 'calls' } | { type: 'cpu' };

const UNLIMITED = { app: 10_000_000, user: 10_000_000 };

async function main(): Promise<void> {
  const sim = createSimulator({
    requestLogSize: 0,
    rateLimits: { posts_lookup: UNLIMITED, liking_users: UNLIMITED, retweeted_by: UNLIMITED, search_recent: UNLIMITED },
  });
  const running = await serveSimulator(sim);
  const send = (message: unknown) => process.send?.(message);
  process.on('message', (message: Message) => {
    if (message.type === 'posts') {
      const ids = Array.from({ length: message.count }, (_, i) => sim.state.injectPost({ author: `author${i % 500}`, text: `post ${i} #btc` }).id);
      send({ type: 'posts', ids });
    } else if (message.type === 'likes' || message.type === 'retweets') {
      for (const change of message.changes) {
        const body = { usernames: change.usernames ?? [], anonymous: change.anonymous ?? 0 };
        if (message.type === 'likes') sim.state.addLikes(change.id, body);
        else sim.state.addRetweets(change.id, body);
      }
      send({ type: 'done' });
    } else if (message.type === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', seconds: (usage.user + usage.system) / 1e6 });
    } else if (message.type === 'calls') {
      const { endpoints } = sim.state.requestLog.counters();
      send({ type: 'calls', calls: Object.fromEntries(Object.entries(endpoints).map(([endpoint, counters]) => [endpoint, counters.requests])) });
    }
  });
  process.on('disconnect', () => void running.close().then(() => process.exit(0)));
  send({ type: 'ready', url: running.url });
}

void main();
