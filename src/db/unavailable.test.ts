import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/database.ts';
import { REFUSING_URL } from '../../test/process.ts';
import type { DatabaseHandle } from './client.ts';
import { openPostgres } from './postgres.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

/**
 * Real failures, from the real driver: a Postgres that refuses connections is unavailable; a
 * statement the database rejects, or any other error, is not.
 */

const handles: DatabaseHandle[] = [];
let database: DatabaseHandle;
beforeAll(async () => {
  database = await openTestDatabase();
  handles.push(database);
});
afterAll(async () => {
  for (const handle of handles) await handle.close();
});

describe('isDatabaseUnavailable', () => {
  it('is true of a refused connection, as drizzle reports it', async () => {
    const down = openPostgres(`${REFUSING_URL.replace('http', 'postgres')}/payreq`, 1);
    handles.push(down);
    const error = await down.db.execute(sql`select 1`).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('is true of a server shutting down and of a connection cut under a query', () => {
    const shutdown = Object.assign(
      new Error('terminating connection due to administrator command'),
      {
        code: '57P01',
      },
    );
    expect(isDatabaseUnavailable(new Error('Failed query', { cause: shutdown }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('is false of a statement the database rejects, and of other errors', async () => {
    const error = await database.db.execute(sql`select * from no_such_table`).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
