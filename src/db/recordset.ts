import {
  type GetColumnData,
  getTableColumns,
  type InferInsertModel,
  type SQL,
  sql,
} from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { type Database, queryRows } from './client.ts';

/**
 * Inserts rows in one statement with one parameter: the rows as a JSON array, read back into
 * the table's column types by `json_to_recordset`. A multi-row VALUES binds one parameter per
 * cell, and at thousands of rows building, parsing and binding those cost more than the insert
 * does (a detection backlog's payments: 30 columns a row). Values are what the columns' own
 * mappings make of them (as drizzle's insert would send them); a column's `$defaultFn` (else
 * `$onUpdate`) fills a row that gives it no value, and a column none of the rows gives a value
 * takes the database's default.
 * Returns the `returning` columns of the rows written, keyed by the names given.
 */
export async function insertRecordset<T extends PgTable, R extends Record<string, PgColumn>>(
  db: Database,
  table: T,
  rows: readonly InferInsertModel<T>[],
  options: {
    /** `on conflict (these) do nothing` when given. */
    readonly skipConflictsOn?: readonly PgColumn[];
    /** Only the rows this holds of are written: a condition on them, named `t` (the rows). */
    readonly where?: SQL;
    /**
     * Other writes the statement makes (a `with` list of `name as (...)`): one round trip for
     * what would be two statements of the same transaction.
     */
    readonly alongside?: SQL;
    readonly returning: R;
  },
): Promise<{ [P in keyof R]: GetColumnData<R[P]> }[]> {
  if (rows.length === 0) return [];
  const columns = writtenColumns(table, rows);
  const records = rows.map((row) => {
    const record: Record<string, unknown> = {};
    const given = row as Record<string, unknown>;
    for (const { key, name, fill, toDriver } of columns) {
      const value = given[key] !== undefined ? given[key] : fill?.();
      record[name] = value === null || value === undefined ? null : toDriver(value);
    }
    return record;
  });
  const names = sql.join(
    columns.map(({ name }) => sql.identifier(name)),
    sql`, `,
  );
  const typed = sql.join(
    columns.map(({ name, type }) => sql`${sql.identifier(name)} ${sql.raw(type)}`),
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
  const json = JSON.stringify(records, asJson);
  const written = await queryRows<Record<string, unknown>>(
    db,
    sql`${options.alongside ? sql`with ${options.alongside} ` : sql``}insert into ${tableName(table)} (${names})
        select ${names} from json_to_recordset(${json}::json) as t(${typed})${
          options.where ? sql` where ${options.where}` : sql``
        }${conflict}
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
 * The columns the rows write, in the table's order: those any row gives a value (`undefined`
 * is no value, as drizzle has it) and those a function fills (`$defaultFn`, else `$onUpdate`).
 * A column with a database default must be given by every row or by none (a row that left it
 * out would be written null, not the default).
 */
function writtenColumns(table: PgTable, rows: readonly object[]): WrittenColumn[] {
  const given = (row: object, key: string) => (row as Record<string, unknown>)[key] !== undefined;
  const named = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) if (given(row, key)) named.add(key);
  const columns: WrittenColumn[] = [];
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const fill = column.defaultFn ?? column.onUpdateFn;
    if (!named.has(key) && !fill) continue;
    if (column.generated) throw new Error(`${key} is generated: it cannot be written`);
    if (column.hasDefault && !fill && !rows.every((row) => given(row, key)))
      throw new Error(`${key} has a database default: name it in every row or in none`);
    const type = column.getSQLType();
    columns.push({
      key,
      name: sqlName(column),
      type,
      fill,
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

/**
 * A value as the JSON Postgres reads back as the driver would have sent it: a bigint as its
 * digits, a number that JSON cannot hold (NaN, ±Infinity) as the word Postgres reads for it, a
 * string with a lone surrogate (which Postgres's JSON refuses, failing every row of the
 * statement) with U+FFFD in its place, as the driver's UTF-8 would.
 */
function asJson(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return value.toWellFormed();
  return value;
}

/** The table's name in SQL, with its schema where it has one. */
function tableName(table: PgTable): SQL {
  const { name, schema } = getTableConfig(table);
  return schema
    ? sql`${sql.identifier(schema)}.${sql.identifier(name)}`
    : sql`${sql.identifier(name)}`;
}

interface WrittenColumn {
  /** The rows' property. */
  readonly key: string;
  /** Its name in SQL. */
  readonly name: string;
  /** Its SQL type, as the recordset reads the rows' JSON into it. */
  readonly type: string;
  /** What fills a row that gives no value (else the database's default, or null). */
  readonly fill: (() => unknown) | undefined;
  readonly toDriver: (value: unknown) => unknown;
}

/**
 * A column's name in SQL, as drizzle spells it: the databases are opened with
 * `casing: 'snake_case'` (postgres.ts, pglite.ts), which names a column by its key unless the
 * schema named it.
 */
const sqlName = (column: PgColumn) => (column.keyAsName ? toSnakeCase(column.name) : column.name);
