/**
 * Polls `condition` every 50 ms until it holds, or throws after `timeoutMs`. Tests wait for a condition, never
 * for a fixed time: a loaded 2-core CI machine may take many times longer than a quiet one, so time-outs are
 * generous and only bound a real failure. An error thrown by `condition` ends the wait with that error.
 */
export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
