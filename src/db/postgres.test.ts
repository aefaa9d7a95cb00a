import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { emptyPostgresDatabase } from '../../test/database.ts';
import { openPostgres } from './postgres.ts';

const source = inject('testDatabase');

describe.runIf(source.kind === 'postgres')('the Postgres pool', () => {
  it('runs a config object without writing to it, named and unnamed, in and out of a transaction', async () => {
    const database = await emptyPostgresDatabase();
    const handle = openPostgres(database.url, 2);
    if (handle.engine.kind !== 'postgres') throw new Error('not Postgres');
    const { pool } = handle.engine;
    try {
      const named = { name: 'pool_test_add', text: 'select $1::int + 1 as n', rowMode: 'array' };
      const unnamed = { text: 'select $1::text as t' };
      const before = [JSON.stringify(named), JSON.stringify(unnamed)];
      for (let i = 0; i < 3; i += 1) {
        expect((await pool.query(named, [i])).rows).toEqual([[i + 1]]);
        expect((await pool.query(unnamed, [`v${i}`])).rows).toEqual([{ t: `v${i}` }]);
      }
      const client = await pool.connect();
      try {
        await client.query('begin');
        expect((await client.query(named, [41])).rows).toEqual([[42]]);
        await client.query('commit');
      } finally {
        client.release();
      }
      // pg sets the values and the callback on the object it runs: never on the caller's.
      expect([JSON.stringify(named), JSON.stringify(unnamed)]).toEqual(before);
      expect(Object.keys(named)).toEqual(['name', 'text', 'rowMode']);
    } finally {
      await handle.close();
      await database.drop();
    }
  });

  it('lives on when the server ends a connection a transaction holds (a restart)', async () => {
    const database = await emptyPostgresDatabase();
    const handle = openPostgres(database.url, 2);
    if (handle.engine.kind !== 'postgres') throw new Error('not Postgres');
    const { pool } = handle.engine;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    // Without a listener of its own on the client, pg's error event would end the process.
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const client = await pool.connect();
      await client.query('begin');
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      // What a restart sends each backend: "terminating connection due to administrator command".
      await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
      // Between two statements: the message reaches the client while no query is out.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const failed = await client.query('select 1').then(
        () => null,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(Error);
      client.release(failed as Error);
      expect(uncaught).toEqual([]);
      // The pool answers again, on a new connection.
      expect((await pool.query('select 1 as n')).rows).toEqual([{ n: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await admin.end();
      await handle.close();
      await database.drop();
    }
  });

  it('parses array rows as pg does, without the per-result empty row object rows as objects use', async () => {
    const database = await emptyPostgresDatabase();
    const handle = openPostgres(database.url, 1);
    if (handle.engine.kind !== 'postgres') throw new Error('not Postgres');
    try {
      const text = `select 1::int as a, 'x'::text as a, null::int as c, '{"k":1}'::jsonb as d`;
      const arrays = await handle.engine.pool.query({ text, rowMode: 'array' });
      expect(arrays.rows).toEqual([[1, 'x', null, { k: 1 }]]);
      expect(arrays.fields.map((field) => field.name)).toEqual(['a', 'a', 'c', 'd']);
      expect(Reflect.get(arrays, '_prebuiltEmptyResultObject')).toBeNull();
      const objects = await handle.engine.pool.query({ text: 'select 1::int as a, 2::int as b' });
      expect(objects.rows).toEqual([{ a: 1, b: 2 }]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
