// Child process of bench/scanner-latency.ts: plays X (the simulator) and publishes the posts, so neither shares
// an event loop with the scanner under test. Talks to its parent over IPC:
//   -> {url}                      once listening
//   <- {start: {postsPerSecond, stepMs, tags}}   starts publishing; each post carries one tag
//   <- {stop: true}  -> {injected, published}    stops publishing; published: [post id, ms][]
import { createSimulator, serveSimulator } from '@hashwatch/x-simulator';

interface StartMessage {
  start?: { postsPerSecond: number; stepMs: number; tags: string[] };
  stop?: boolean;
}

async function main(): Promise<void> {
  const unlimited = { app: 10_000_000, user: 10_000_000 };
  const sim = createSimulator({ requestLogSize: 0, rateLimits: { search_recent: unlimited } });
  const running = await serveSimulator(sim);
  let injected = 0;
  const published: [string, number][] = [];
  let timer: NodeJS.Timeout | undefined;
  process.on('message', (message: StartMessage) => {
    if (message.start) {
      const { postsPerSecond, stepMs, tags } = message.start;
      timer = setInterval(() => {
        for (let i = 0; i < (postsPerSecond * stepMs) / 1000; i += 1) {
          injected += 1;
          const post = sim.state.injectPost({ author: `w${injected % 97}`, text: `update ${injected} #${tags[injected % tags.length]}`, lang: 'en' });
          published.push([post.id, Date.now()]);
        }
      }, stepMs);
    }
    if (message.stop) {
      clearInterval(timer);
      // Exits once the answer is written: an exit right after send() could drop it (thousands of entries).
      process.send?.({ injected, published }, () => void running.close().then(() => process.exit(0)));
    }
  });
  process.send?.({ url: running.url });
}

void main();
