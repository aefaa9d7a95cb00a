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
});
