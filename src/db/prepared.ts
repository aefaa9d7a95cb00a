import type { Database } from './client.ts';

/**
 * A hot query built once per database handle instead of on every call: drizzle's query
 * building is a large share of a request's CPU, and a named statement lets Postgres parse and
 * plan it once per connection. `build` receives the handle and returns the prepared queries
 * (`.prepare(name)` with `sql.placeholder`s); they are kept as long as the handle lives.
 */
export function preparedPerDatabase<T>(build: (db: Database) => T): (db: Database) => T {
  const cache = new WeakMap<Database, T>();
  return (db) => {
    let prepared = cache.get(db);
    if (prepared === undefined) {
      prepared = build(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}
