/** Values a lookup by list takes at once (Postgres takes at most 65,535 parameters). */
const LOOKUP_VALUES = 10_000;

/** `lookup` over `values` in chunks small enough for one statement each, answers joined. */
export async function inChunks<T, R>(
  values: readonly T[],
  lookup: (chunk: T[]) => Promise<readonly R[]>,
): Promise<R[]> {
  if (values.length === 0) return [];
  if (values.length <= LOOKUP_VALUES) return [...(await lookup([...values]))];
  const found: R[] = [];
  for (let i = 0; i < values.length; i += LOOKUP_VALUES)
    found.push(...(await lookup(values.slice(i, i + LOOKUP_VALUES))));
  return found;
}
