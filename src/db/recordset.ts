import {
  type GetColumnData,
  getTableColumns,
  getTableName,
  type InferInsertModel,
  type SQL,
  sql,
} from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { type Database, queryRows } from './client.ts';

/**
 * Inserts rows in one statement with one parameter: the rows as a JSON array, read back into
 * the table's column types by `json_to_recordset`. A multi-row VALUES binds one parameter per
 * cell, and at thousands of rows building, parsing and binding those cost more than the insert
 * does (a detection backlog's payments: 30 columns a row). Values are what the columns' own
 * mappings make of them (as drizzle's insert would send them); a column's `$defaultFn` fills a
 * row that leaves it out, and a column none of the rows names takes the database's default.
 * Returns the `returning` columns of the rows written, keyed by the names given.
 */
export async function insertRecordset<T extends PgTable, R extends Record<string, PgColumn>>(
  db: Database,
  table: T,
  rows: readonly InferInsertModel<T>[],
  options: {
    /** `on conflict (these) do nothing` when given. */
    readonly skipConflictsOn?: readonly PgColumn[];
    readonly returning: R;
  },
): Promise<{ [P in keyof R]: GetColumnData<R[P]> }[]> {
  if (rows.length === 0) return [];
  const columns = writtenColumns(table, rows);
  const records = rows.map((row) => {
    const record: Record<string, unknown> = {};
    const given = row as Record<string, unknown>;
    for (const { key, name, column, toDriver } of columns) {
      const value = key in given ? given[key] : column.defaultFn?.();
      record[name] = value === null || value === undefined ? null : toDriver(value);
    }
    return record;
  });
  const names = sql.join(
    columns.map(({ name }) => sql.identifier(name)),
    sql`, `,
  );
  const typed = sql.join(
    columns.map(({ name, column }) => sql`${sql.identifier(name)} ${sql.raw(column.getSQLType())}`),
    sql`, `,
  );
  const conflict: SQL = options.skipConflictsOn
    ? sql` on conflict (${sql.join(
        options.skipConflictsOn.map((c) => sql.identifier(sqlName(c))),
        sql`, `,
      )}) do nothing`
    : sql``;
  const returning = sql.join(
    Object.entries(options.returning).map(
      ([as, column]) => sql`${sql.identifier(sqlName(column))} as ${sql.identifier(as)}`,
    ),
    sql`, `,
  );
  const json = JSON.stringify(records, (_, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
  const written = await queryRows<Record<string, unknown>>(
    db,
    sql`insert into ${sql.identifier(getTableName(table))} (${names})
        select ${names} from json_to_recordset(${json}::json) as t(${typed})${conflict}
        returning ${returning}`,
  );
  // Each driver's values as the columns' own mappings read them (a bigint from either's form).
  const read = Object.entries(options.returning);
  return written.map((row) => {
    const typed: Record<string, unknown> = {};
    for (const [as, column] of read) {
      const value = row[as];
      typed[as] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return typed as { [P in keyof R]: GetColumnData<R[P]> };
  });
}

/**
 * The columns the rows write, in the table's order: those any row names and those with a
 * `$defaultFn`. A column with a database default must be named by every row or by none (a row
 * that left it out would be written null, not the default).
 */
function writtenColumns(table: PgTable, rows: readonly object[]): WrittenColumn[] {
  const named = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) named.add(key);
  const columns: WrittenColumn[] = [];
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    if (!named.has(key) && !column.defaultFn) continue;
    if (column.generated) throw new Error(`${key} is generated: it cannot be written`);
    if (column.hasDefault && !column.defaultFn && !rows.every((row) => key in row))
      throw new Error(`${key} has a database default: name it in every row or in none`);
    const type = column.getSQLType();
    columns.push({
      key,
      name: sqlName(column),
      column,
      // A JSON column's value is already JSON within the rows' JSON: its mapping's text would
      // be read as a JSON string. Others as their mappings send them (a Date as ISO text).
      toDriver:
        type === 'json' || type === 'jsonb'
          ? (value) => value
          : (value) => column.mapToDriverValue(value),
    });
  }
  return columns;
}

interface WrittenColumn {
  /** The rows' property. */
  readonly key: string;
  /** Its name in SQL. */
  readonly name: string;
  readonly column: PgColumn;
  readonly toDriver: (value: unknown) => unknown;
}

/**
 * A column's name in SQL, as drizzle spells it: the databases are opened with
 * `casing: 'snake_case'` (postgres.ts, pglite.ts), which names a column by its key unless the
 * schema named it.
 */
const sqlName = (column: PgColumn) => (column.keyAsName ? toSnakeCase(column.name) : column.name);
