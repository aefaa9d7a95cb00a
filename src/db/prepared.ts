import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
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

/** Renders hand-written statements (their names are spelled out, so no casing is involved). */
const dialect = new PgDialect();

/**
 * A hand-written statement with `sql.placeholder`s, rendered once and prepared under `name` on
 * each database handle: the call passes only its values.
 */
export function preparedStatement<Row>(
  name: string,
  statement: SQL,
): (db: Database, params: Readonly<Record<string, unknown>>) => Promise<Row[]> {
  const query = dialect.sqlToQuery(statement);
  const prepared = preparedPerDatabase((db) =>
    db._.session.prepareQuery(query, undefined, name, false),
  );
  return async (db, params) => {
    const result = (await prepared(db).execute(params)) as unknown as { rows: Row[] };
    return result.rows;
  };
}
