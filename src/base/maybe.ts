/**
 * Values that are ready now or later. The request hooks run on every request; when what they
 * need is already in memory (a cached credential, the in-process rate-limit log) they finish
 * without a promise, and only a lookup that must wait (the database, Redis) makes one.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)` now if `value` is ready, else once it is. */
export function andThen<T, U>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<U>,
): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Runs a callback-style hook's `work` and calls `done` once it has finished: at once when it
 * finished without waiting, with the error when it threw or rejected.
 */
export function settle(done: (error?: Error) => void, work: () => MaybePromise<unknown>): void {
  let result: MaybePromise<unknown>;
  try {
    result = work();
  } catch (error) {
    done(error as Error);
    return;
  }
  if (result instanceof Promise) result.then(() => done(), done);
  else done();
}
