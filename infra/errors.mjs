/** A failure the user can act on: printed as one line, without a stack trace. */
export class DevError extends Error {
  name = 'DevError';
}

/** The run was stopped by a signal (the message names it): stop what was started, exit 130. */
export class Interrupted extends Error {
  name = 'Interrupted';
}
