/** What bounded work gave: its value, or why there is none. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: 'timeout' | 'failed' };

/** The work's result, or why there is none: it failed, or took longer than `ms`. */
export async function bounded<T>(work: Promise<T>, ms: number): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: 'timeout' }), ms);
  });
  try {
    return await Promise.race([
      work.then(
        (value): Outcome<T> => ({ ok: true, value }),
        (): Outcome<T> => ({ ok: false, reason: 'failed' }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
