import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import { AppError } from '../base/errors.ts';
import { isUuid } from '../base/ids.ts';

/**
 * Keyset pagination over (time, id), newest first: a page ends at its last row's key and the
 * next one starts strictly after it, so rows inserted between fetches neither push rows onto
 * the next page twice nor hide any, and page N costs what page 1 costs (one index descent).
 *
 * The cursor is opaque to callers: base64url of `<timestamp>|<uuid>`. The timestamp is read
 * from the database to the microsecond (a JS Date keeps milliseconds, and two rows created in
 * the same millisecond would otherwise fall between two pages).
 */

export interface KeysetPosition {
  /** ISO 8601 UTC with six fraction digits, as `keysetAt` reads it. */
  readonly at: string;
  readonly id: string;
}

const INVALID_CURSOR_MESSAGE = 'cursor is not one this API returned';

/** Six fraction digits as we write them; three still read, as cursors were first written. */
const AT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(?:\d{3})?Z$/;

/** The column to the microsecond, in the cursor's form; select it beside the page's rows. */
export function keysetAt(column: AnyColumn): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.at}|${position.id}`).toString('base64url');
}

/** Throws `invalid_cursor` for anything `encodeCursor` did not make. */
export function decodeCursor(cursor: string): KeysetPosition {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (
    rest.length > 0 ||
    at === undefined ||
    id === undefined ||
    !AT_PATTERN.test(at) ||
    Number.isNaN(Date.parse(at)) ||
    !isUuid(id)
  ) {
    throw new AppError('invalid_cursor', INVALID_CURSOR_MESSAGE);
  }
  return { at, id };
}

/**
 * Rows after `position` in newest-first order. Written as one row comparison so that an index
 * on (…, time, id) serves it as a range, not a filter.
 */
export function olderThan(at: AnyColumn, id: AnyColumn, position: KeysetPosition): SQL {
  return sql`(${at}, ${id}) < (${position.at}::timestamptz, ${position.id}::uuid)`;
}

/** The cursor of the page's last row when there is a next page, else null. */
export function nextCursor(
  page: readonly { readonly cursorAt: string; readonly id: string }[],
  hasMore: boolean,
): string | null {
  const last = page.at(-1);
  return hasMore && last ? encodeCursor({ at: last.cursorAt, id: last.id }) : null;
}

/**
 * A page of a list read one row deeper than `limit` (that row only says there is more): its
 * rows, and the cursor pagination the lists answer with.
 */
export function keysetPage<R>(
  rows: readonly R[],
  limit: number,
  positionOf: (row: R) => { readonly cursorAt: string; readonly id: string },
) {
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return {
    page,
    pagination: { limit, nextCursor: nextCursor(page.map(positionOf), hasMore), hasMore },
  };
}
