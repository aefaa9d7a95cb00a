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
 * A hand-written statement with `sql.placeholder`s, rendered once: the call passes only its
 * values. It is sent unnamed, so Postgres plans it at each execution against the tables' sizes
 * of the moment. A named statement may settle on one generic plan per connection, made when it
 * first ran; over a table that starts empty and grows (a queue), that plan is a sequential
 * scan, kept until an ANALYZE of the table happens to discard it, and every run reads the whole
 * table. Planning a statement that moves a batch of rows costs little next to the batch.
 */
export function batchStatement<Row>(
  statement: SQL,
): (db: Database, params: Readonly<Record<string, unknown>>) => Promise<Row[]> {
  const query = dialect.sqlToQuery(statement);
  const prepared = preparedPerDatabase((db) =>
    db._.session.prepareQuery(query, undefined, undefined, false),
  );
  return async (db, params) => {
    const result = (await prepared(db).execute(params)) as unknown as { rows: Row[] };
    return result.rows;
  };
}
