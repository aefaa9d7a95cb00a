/**
 * A reason the service cannot start that the operator fixes: the message is the one line
 * `payreq serve` prints before it exits non-zero, the cause first, then the fix (a command to
 * run, a variable to set). The error it came from, if any, is the `cause`.
 */
export class StartError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StartError';
  }
}

/** The first line of an error's message, cut short: a detail inside a one-line message. */
export function firstLine(error: unknown, max = 160): string {
  const text = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
