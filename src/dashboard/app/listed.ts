import { messageOf } from './api.ts';

/** A list a page reads from the API: loading, listed, or why it could not be read. */
export type Listed<T> =
  | { readonly kind: 'loading' }
  | { readonly kind: 'listed'; readonly items: readonly T[] }
  | { readonly kind: 'failed'; readonly message: string };

/**
 * Reads a list into `set`: listed, or failed with its message, unless the failure ended the
 * session (`ended` then shows the sign-in page).
 */
export function readList<T>(
  read: Promise<readonly T[]>,
  set: (listed: Listed<T>) => void,
  ended: (error: unknown) => boolean,
): void {
  read.then(
    (items) => set({ kind: 'listed', items }),
    (error: unknown) => {
      if (!ended(error)) set({ kind: 'failed', message: messageOf(error) });
    },
  );
}
