import { Type } from 'typebox';
import { ValidationError } from '../base/errors.ts';
import { decodeCursor, type KeysetPosition } from '../db/keyset.ts';

/**
 * How lists page, the same on every list: `limit`, then either `offset` (the reference's) or
 * our `cursor` (`pagination.nextCursor` of the page before), newest first.
 *
 * The largest offset any list takes: an offset is read past row by row, so page 10,000 costs
 * 10,000 times page 1; deeper pages are the cursor's job, which costs the same at any depth.
 * Checked by `pageStart`, not the schema, so that the 400 can say what to do instead.
 */
export const MAX_OFFSET = 10_000;
/** The most items on one page of any list. */
export const MAX_PAGE_SIZE = 100;
/** The largest page number of page-numbered lists (pages of at most 100 items). */
export const MAX_PAGE_NUMBER = 10_000;

const OFFSET_LIMIT_MESSAGE = `must be <= ${MAX_OFFSET}; page further with cursor (pagination.nextCursor)`;
const CURSOR_WITH_OFFSET_MESSAGE =
  'must not be sent with cursor: a cursor already says where the page starts';

const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE }));
const CURSOR_TEXT =
  'Ours: pagination.nextCursor of the previous page: the next page starts after it, whatever was added since.';
const Cursor = Type.Optional(
  Type.String({ minLength: 1, maxLength: 200, description: `${CURSOR_TEXT} Not with offset.` }),
);
const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Ours: send as cursor for the next page; null on the last page',
});

/** The query fields of a list that pages by offset or cursor; spread into its querystring. */
export const PAGE_QUERY = {
  limit: Limit,
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: `At most ${MAX_OFFSET} (400 beyond); page deeper with cursor`,
    }),
  ),
  cursor: Cursor,
};

/** The `pagination` fields a list that pages by offset or cursor answers with. */
export const PAGINATION = {
  limit: Type.Integer(),
  offset: Type.Integer(),
  hasMore: Type.Boolean(),
  nextCursor: NextCursor,
};

/**
 * A list that pages by cursor alone (the links list). Its cursor has always taken up to 256
 * characters and the empty string, which the list refuses as `invalid_cursor`.
 */
export const CURSOR_PAGE_QUERY = {
  limit: Limit,
  cursor: Type.Optional(Type.String({ maxLength: 256, description: CURSOR_TEXT })),
};
export const CURSOR_PAGINATION = {
  limit: Type.Integer(),
  nextCursor: NextCursor,
  hasMore: Type.Boolean(),
};

/**
 * Where a page of a list that takes both starts: `offset` (bounded at MAX_OFFSET) or `cursor`,
 * never both. A 400 names what to send instead.
 */
export function pageStart(query: { offset?: number | undefined; cursor?: string | undefined }): {
  offset: number;
  after: KeysetPosition | undefined;
} {
  const offset = query.offset ?? 0;
  if (offset > MAX_OFFSET) {
    throw new ValidationError([{ field: 'offset', message: OFFSET_LIMIT_MESSAGE }]);
  }
  if (query.cursor !== undefined && offset > 0) {
    throw new ValidationError([{ field: 'offset', message: CURSOR_WITH_OFFSET_MESSAGE }]);
  }
  return { offset, after: query.cursor === undefined ? undefined : decodeCursor(query.cursor) };
}
