import { type Column, getTableColumns, getTableName, type SQL, sql, type Table } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from '../db/client.ts';
import { preparedPerDatabase } from '../db/prepared.ts';
import { idempotencyKeys, payeeDestinations, requests, securePayments } from '../db/schema.ts';
import { inheritedScreening } from '../screening/link-policy.ts';

/**
 * One link and its requests written by one statement (`insert-link.ts` makes the rows,
 * `link-group.ts` writes many links' rows at once and falls back to this for one).
 */

export type Row = Record<string, unknown>;

/** A column's name as the statements spell it out (no casing is involved). */
const columnName = (c: Column) => sql.identifier(toSnakeCase(c.name));

/** A link and its requests as rows, with their ids: what a write sends, alone or in a group. */
export interface LinkRows {
  readonly id: string;
  readonly accountId: string;
  readonly link: Row;
  /** `NewLink.screeningFromDestination`. */
  readonly inheritsScreening: boolean;
  readonly requests: readonly { readonly values: Row; readonly destinationId: string }[];
}

/** What a write answers of a link it made. */
export interface WrittenLink {
  readonly id: string;
  readonly requestIds: string[];
}

/** The request ids of written rows, in their order. */
export function requestIdsOf(rows: LinkRows): string[] {
  return rows.requests.map(({ values }) => values.requestId as string);
}

/** `insertLinkWithRequests` of rows already made. */
export async function writeLinkRows(db: Database, written: LinkRows): Promise<WrittenLink | null> {
  const { id, link: linkRow, requests: rows } = written;
  const [first] = rows;
  if (first === undefined) throw new Error('a link has at least one request');
  const statement = linkStatement(db, rows.length, linkRow, first.values);
  // The statement's placeholders come from the first rows it was built for: rows of another
  // shape would lose values silently.
  assertShape(linkRow, statement.linkColumns);
  for (const [i, { values }] of rows.entries())
    assertShape(values, statement.requests[i]?.all ?? []);
  // Placeholders are named by their position: the values go in one array, not a dictionary of
  // some forty names built per link (a twentieth of the server's work on it).
  const params: unknown[] = new Array(statement.size);
  params[ACCOUNT_ID] = written.accountId;
  params[DESTINATIONS] = [...new Set(rows.map((row) => row.destinationId))];
  params[INHERITS_SCREENING] = written.inheritsScreening;
  for (const { key, index, column } of statement.linkColumns) {
    params[index] = driverValue(column, linkRow[key]);
  }
  rows.forEach(({ values, destinationId }, i) => {
    const slots = statement.requests[i];
    if (slots === undefined) throw new Error(`statement for ${rows.length} has no row ${i}`);
    for (const { key, index, column } of slots.columns) {
      params[index] = driverValue(column, values[key]);
    }
    params[slots.destination] = destinationId;
  });
  const result = (await statement.query.execute(params)) as unknown as { rows: unknown[] };
  if (result.rows.length === 0) return null;
  return { id, requestIds: requestIdsOf(written) };
}

function assertShape(row: Row, slots: readonly Slot[]): void {
  let count = 0;
  for (const key in row) {
    if (slots[count]?.key !== key) {
      throw new Error(`a row of shape ${Object.keys(row)} does not fit its statement's columns`);
    }
    count += 1;
  }
  if (count !== slots.length) throw new Error("a row lacks some of its statement's columns");
}

function driverValue(column: Column, value: unknown): unknown {
  return value === null || value === undefined ? null : column.mapToDriverValue(value);
}

/** A value the statement writes: the row property it comes from and its placeholder's position. */
interface Slot {
  readonly key: string;
  readonly index: number;
  readonly column: Column;
}

/** The positions of the statement's values that come from no row. */
const ACCOUNT_ID = 0;
const DESTINATIONS = 1;
const INHERITS_SCREENING = 2;

interface LinkStatement {
  readonly linkColumns: readonly Slot[];
  /**
   * Per request row: the slots of the columns it writes, of every key of the row it was built
   * from (`destinationId` included, which `dest` supplies instead), and its destination id's
   * placeholder's position.
   */
  readonly requests: readonly {
    readonly columns: readonly Slot[];
    readonly all: readonly Slot[];
    readonly destination: number;
  }[];
  /** How many values the statement takes. */
  readonly size: number;
  /** Executed with the values in an array: drizzle reads placeholder `"3"` as `values[3]`. */
  readonly query: { execute(params: readonly unknown[]): Promise<unknown> };
}

const linkStatements = preparedPerDatabase(() => new Map<number, LinkStatement>());
/** Renders the statement (its names are spelled out, so no casing is involved). */
const dialect = new PgDialect();

function linkStatement(db: Database, count: number, link: Row, request: Row): LinkStatement {
  const prepared = linkStatements(db);
  const kept = prepared.get(count);
  if (kept) return kept;
  let size = INHERITS_SCREENING + 1;
  const linkColumns = slotsOf(securePayments, link, size);
  size += linkColumns.length;
  // A request's destination row id comes from `dest`, never from the caller's row.
  const requestRows = Array.from({ length: count }, () => {
    const all = slotsOf(requests, request, size);
    size += all.length;
    return {
      columns: all.filter(({ key }) => key !== 'destinationId'),
      all,
      destination: size++,
    };
  });
  const at = (index: number) => sql.placeholder(String(index));
  const name = (table: Table) => sql.identifier(getTableName(table));
  const list = (slots: readonly Slot[]) =>
    sql.join(
      slots.map((slot) => columnName(slot.column)),
      sql`, `,
    );
  // Typed placeholders: a union of rows gives Postgres no column to infer their types from.
  const values = (slots: readonly Slot[]): SQL =>
    sql.join(
      slots.map((slot) => sql`${at(slot.index)}::${sql.raw(slot.column.getSQLType())}`),
      sql`, `,
    );
  const d = payeeDestinations;
  const [firstRow] = requestRows;
  if (firstRow === undefined) throw new Error('a link has at least one request');
  // The link's screening: its own, or its first request's destination's when it inherits it.
  const linkValuesSql = sql.join(
    linkColumns.map((slot) => {
      const value = sql`${at(slot.index)}::${sql.raw(slot.column.getSQLType())}`;
      if (slot.column !== securePayments.screening) return value;
      const policy = sql`(select "access_policy" from "dest" where "destination_id" = ${at(firstRow.destination)}::text)`;
      return sql`case when ${at(INHERITS_SCREENING)}::boolean then ${inheritedScreening(policy, value)} else ${value} end`;
    }),
    sql`, `,
  );
  const linkValue = (c: Column) => {
    const slot = linkColumns.find((candidate) => candidate.column === c);
    if (slot === undefined) throw new Error(`a link row without ${c.name}`);
    return sql`${at(slot.index)}::${sql.raw(c.getSQLType())}`;
  };
  const statement = sql`with "dest" as (
      select ${columnName(d.id)}, ${columnName(d.destinationId)}, ${columnName(d.accessPolicy)} from ${name(d)}
      where ${columnName(d.accountId)} = ${at(ACCOUNT_ID)}::uuid and ${columnName(d.active)}
        and ${columnName(d.destinationId)} = any(${at(DESTINATIONS)}::text[])
    ), "link" as (
      insert into ${name(securePayments)} (${list(linkColumns)})
      select ${linkValuesSql}
      where (select count(*) from "dest") = cardinality(${at(DESTINATIONS)}::text[])
        and ${keyFree(
          linkValue(securePayments.idempotencyScope),
          linkValue(securePayments.idempotencyKey),
          linkValue(securePayments.createdAt),
        )}
      ${onKeyConflict}
      returning ${columnName(securePayments.id)}
    )
    insert into ${name(requests)} (${list(firstRow.columns)}, ${columnName(requests.destinationId)})
    ${sql.join(
      requestRows.map(
        (row) =>
          sql`select ${values(row.columns)}, (select "id" from "dest" where "destination_id" = ${at(row.destination)}::text) from "link"`,
      ),
      sql` union all `,
    )}
    returning ${columnName(requests.id)}`;
  // drizzle types the values as a dictionary; an array is one whose names are positions.
  const query = db._.session.prepareQuery(
    dialect.sqlToQuery(statement),
    undefined,
    `insert_link_with_${count}_requests`,
    false,
  ) as unknown as LinkStatement['query'];
  const built = { linkColumns, requests: requestRows, size, query };
  prepared.set(count, built);
  return built;
}

/**
 * A link's `Idempotency-Key` is not held by a kept record (another kind of write made under
 * it, idempotency/records.ts): the link is then not written, and the key's holder answers.
 * True for a link without a key.
 */
export function keyFree(scope: SQL, key: SQL, createdAt: SQL): SQL {
  const k = idempotencyKeys;
  return sql`not exists (
      select 1 from ${sql.identifier(getTableName(k))}
      where ${columnName(k.scope)} = ${scope} and ${columnName(k.key)} = ${key}
        and ${columnName(k.expiresAt)} > ${createdAt}
    )`;
}

/**
 * A link whose key another link holds is not written (the index of keys, schema/links.ts):
 * concurrent writes under one key wait for the first to commit, then write nothing.
 */
export const onKeyConflict = sql`on conflict (${columnName(securePayments.idempotencyScope)}, ${columnName(securePayments.idempotencyKey)})
      where ${columnName(securePayments.idempotencyKey)} is not null do nothing`;

/** The table's columns for the keys of a row, in the row's key order, at positions from `from`. */
function slotsOf(table: Table, row: Row, from: number): Slot[] {
  const columns = getTableColumns(table) as Record<string, Column>;
  return Object.keys(row).map((key, i) => {
    const column = columns[key];
    if (column === undefined) throw new Error(`${getTableName(table)} has no column ${key}`);
    return { key, index: from + i, column };
  });
}
