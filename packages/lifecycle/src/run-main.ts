/**
 * Runs an app's composition root. A start-up failure (a bad variable, a key that does not open the stored
 * secrets, a dependency that does not answer) ends the process with 1 and its message as one line on stderr,
 * where the logger may not exist yet; nothing else is printed, so the line names the problem and never a secret.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
