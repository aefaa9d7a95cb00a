import { type Column, getTableColumns, getTableName, type SQL, sql, type Table } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from '../db/client.ts';
import { type GroupWriter, groupCommit } from '../db/group-commit.ts';
import { preparedPerDatabase } from '../db/prepared.ts';
import { payeeDestinations, requests, securePayments } from '../db/schema.ts';
import { inheritedScreening } from '../screening/link-policy.ts';
import { type LinkItem, linkRows, type NewLink } from './insert-link.ts';
import {
  keyFree,
  type LinkRows,
  onKeyConflict,
  type Row,
  requestIdsOf,
  type WrittenLink,
  writeLinkRows,
} from './link-write.ts';

/**
 * Links made at the same time by different callers, written together (`group-commit.ts`): one
 * statement writes every link of the group and their requests, each link only when every
 * destination its requests pay is an active one of its account, as `insertLinkWithRequests`
 * writes one. A link whose destination is missing is answered null and the others are
 * written; a link the database refuses makes the group fall back to one statement per link.
 *
 * The rows travel as two JSON arrays that `jsonb_to_recordset` reads back into typed columns:
 * one statement, whatever the group's size, parsed once per connection.
 */

/**
 * A link and its requests, written with those of other callers: null as
 * `insertLinkWithRequests` (a destination missing, or the link's `Idempotency-Key` held).
 */
export async function writeLink(
  db: Database,
  link: NewLink,
  items: readonly LinkItem[],
): Promise<WrittenLink | null> {
  return linkWriter(db).write(linkRows(link, items));
}

/** The group writer of a database's links (its counts are what tests observe). */
export const linkWriter = preparedPerDatabase(
  (db): GroupWriter<LinkRows, WrittenLink | null> =>
    groupCommit({
      writeGroup: (groups) => writeLinkGroup(db, groups),
      writeOne: (rows) => writeLinkRows(db, rows),
    }),
);

/** Writes the links in one statement; each answered as `writeLinkRows` answers it. */
async function writeLinkGroup(
  db: Database,
  groups: readonly LinkRows[],
): Promise<(WrittenLink | null)[]> {
  const [first] = groups;
  const request = first?.requests[0]?.values;
  if (first === undefined || request === undefined) return [];
  const statement = groupStatement(db, first.link, request);
  const links = groups.map((group) => ({
    ...jsonRow(statement.link, group.link),
    [INHERITS_KEY]: group.inheritsScreening,
  }));
  const rows = groups.flatMap((group) =>
    group.requests.map(({ values, destinationId }) => ({
      ...jsonRow(statement.request, values),
      [DESTINATION_KEY]: destinationId,
    })),
  );
  const result = (await statement.query.execute([
    JSON.stringify(links),
    JSON.stringify(rows),
  ])) as unknown as { rows: { secure_payment_id: string }[] };
  const written = new Set(result.rows.map((row) => row.secure_payment_id));
  return groups.map((group) =>
    written.has(group.id) ? { id: group.id, requestIds: requestIdsOf(group) } : null,
  );
}

/** The JSON field of a request's destination id (a request row's own `destination_id` is dest's). */
const DESTINATION_KEY = 'destination_key';
/** The JSON field of a link that inherits its destination's screening (`LinkRows`). */
const INHERITS_KEY = 'inherits_key';

/** A column a statement reads from its JSON rows: the row's key and the column. */
interface Field {
  readonly key: string;
  readonly name: string;
  readonly column: Column;
  readonly json: boolean;
}

interface GroupStatement {
  readonly link: readonly Field[];
  readonly request: readonly Field[];
  readonly query: { execute(params: readonly unknown[]): Promise<unknown> };
}

/** A row as the statement's JSON reads it: its columns' names, each value as Postgres reads it. */
function jsonRow(fields: readonly Field[], row: Row): Row {
  const out: Row = {};
  for (const { key, name, column, json } of fields) {
    const value = row[key];
    if (value === null || value === undefined) out[name] = null;
    // A JSON column's value is JSON already; any other column takes its driver value as text.
    else if (json) out[name] = value;
    else {
      const driver = column.mapToDriverValue(value);
      out[name] =
        driver instanceof Date
          ? driver.toISOString()
          : typeof driver === 'bigint'
            ? driver.toString()
            : driver;
    }
  }
  if (Object.keys(row).length !== fields.length) {
    throw new Error(`a row of shape ${Object.keys(row)} does not fit its group's columns`);
  }
  return out;
}

const groupStatements = preparedPerDatabase(() => new Map<string, GroupStatement>());
const dialect = new PgDialect();

function fieldsOf(table: Table, row: Row): Field[] {
  const columns = getTableColumns(table) as Record<string, Column>;
  return Object.keys(row).map((key) => {
    const column = columns[key];
    if (column === undefined) throw new Error(`${getTableName(table)} has no column ${key}`);
    const type = column.getSQLType();
    return {
      key,
      name: toSnakeCase(column.name),
      column,
      json: type === 'jsonb' || type === 'json',
    };
  });
}

/** The statement that writes a group of links of this shape. */
function groupStatement(db: Database, link: Row, request: Row): GroupStatement {
  const shape = `${Object.keys(link).join()}|${Object.keys(request).join()}`;
  const kept = groupStatements(db).get(shape);
  if (kept) return kept;
  const linkFields = fieldsOf(securePayments, link);
  const requestFields = fieldsOf(requests, request);
  // A request's destination row id comes from `dest`, never from the caller's row.
  const written = requestFields.filter(({ key }) => key !== 'destinationId');
  const id = (name: string) => sql.identifier(name);
  const names = (fields: readonly Field[], from?: string) =>
    sql.join(
      fields.map((field) =>
        from === undefined ? id(field.name) : sql`${id(from)}.${id(field.name)}`,
      ),
      sql`, `,
    );
  const definitions = (fields: readonly Field[]): SQL =>
    sql.join(
      fields.map((field) => sql`${id(field.name)} ${sql.raw(field.column.getSQLType())}`),
      sql`, `,
    );
  const d = payeeDestinations;
  const column = (c: Column) => id(toSnakeCase(c.name));
  // The link's screening: its own, or its first request's destination's when it inherits it.
  const linkValues = sql.join(
    linkFields.map((field) => {
      const value = sql`"l".${id(field.name)}`;
      if (field.column !== securePayments.screening) return value;
      const policy = sql`(select "dest"."access_policy" from "r" join "dest"
          on "dest"."account_id" = "l"."account_id"
          and "dest"."destination_id" = "r".${id(DESTINATION_KEY)}
        where "r"."secure_payment_id" = "l"."id" and "r"."position" = 0)`;
      return sql`case when "l".${id(INHERITS_KEY)} then ${inheritedScreening(policy, value)} else ${value} end`;
    }),
    sql`, `,
  );
  // Every destination the link's requests pay is an active one of its account.
  const destinationsActive = sql`not exists (
        select 1 from "r" where "r"."secure_payment_id" = "l"."id" and not exists (
          select 1 from "dest"
          where "dest"."account_id" = "l"."account_id"
            and "dest"."destination_id" = "r".${id(DESTINATION_KEY)}
        )
      )`;
  const insertRequests = sql`insert into ${id(getTableName(requests))} (${names(written)}, ${column(requests.destinationId)})
    select ${names(written, 'r')}, (
      select "dest"."id" from "dest"
      where "dest"."account_id" = "link"."account_id"
        and "dest"."destination_id" = "r".${id(DESTINATION_KEY)}
    )
    from "r" join "link" on "link"."id" = "r"."secure_payment_id"
    returning ${column(requests.securePaymentId)}`;
  const l = (c: Column) => sql`"l".${column(c)}`;
  // The links go in the order of their keys, so every group takes the keys it shares with
  // another in the same order: two groups never wait for each other's key (a deadlock).
  const statement = sql`with "l" as (
      select * from jsonb_to_recordset(${sql.placeholder('0')}::jsonb)
        as t(${definitions(linkFields)}, ${id(INHERITS_KEY)} boolean)
    ), "r" as (
      select * from jsonb_to_recordset(${sql.placeholder('1')}::jsonb)
        as t(${definitions(written)}, ${id(DESTINATION_KEY)} text)
    ), "dest" as (
      select ${column(d.id)}, ${column(d.accountId)}, ${column(d.destinationId)}, ${column(d.accessPolicy)}
      from ${id(getTableName(d))}
      where ${column(d.active)} and (${column(d.accountId)}, ${column(d.destinationId)}) in (
        select "l"."account_id", "r".${id(DESTINATION_KEY)}
        from "r" join "l" on "l"."id" = "r"."secure_payment_id"
      )
    ), "link" as (
      insert into ${id(getTableName(securePayments))} (${names(linkFields)})
      select ${linkValues} from "l"
      where ${destinationsActive}
        and ${keyFree(l(securePayments.idempotencyScope), l(securePayments.idempotencyKey), l(securePayments.createdAt))}
      order by ${l(securePayments.idempotencyScope)}, ${l(securePayments.idempotencyKey)}
      ${onKeyConflict}
      returning "id", "account_id"
    )
    ${insertRequests}`;
  const statements = groupStatements(db);
  // drizzle types the values as a dictionary; an array is one whose names are positions.
  const query = db._.session.prepareQuery(
    dialect.sqlToQuery(statement),
    undefined,
    `insert_link_group_${statements.size}`,
    false,
  ) as unknown as GroupStatement['query'];
  const built = { link: linkFields, request: requestFields, query };
  statements.set(shape, built);
  return built;
}
