let message: string | null = null;

/**
 * A message for the next page, kept outside the URL: after a deletion or a password change the session ends and
 * the router sends the visitor to sign-in by itself, so the message cannot ride on a link of ours.
 */
export function setFlash(text: string): void {
  message = text;
}

/** The message, left in place (a render may run twice); {@link clearFlash} once it was shown. */
export function peekFlash(): string | null {
  return message;
}

export function clearFlash(): void {
  message = null;
}
