/**
 * Polls `condition` every `everyMs` until it holds, or throws naming `what` after `timeoutMs`. Tests wait for a
 * condition, never for a fixed time: a loaded 2-core CI machine may take many times longer than a quiet one, so
 * time-outs are generous and only bound a real failure. The condition is asked once more when the time is up, so a
 * slow last poll never reads as a time-out. An error thrown by `condition` ends the wait with that error.
 */
export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
