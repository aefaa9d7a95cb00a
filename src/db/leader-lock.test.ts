import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase } from '../../test/database.ts';
import type { DatabaseHandle } from './client.ts';
import { createLeaderLock } from './leader-lock.ts';

/** Leader locks on Postgres: one holder, held outside the pool, lost with the connection. */

const source = inject('testDatabase');

describe.runIf(source.kind === 'postgres')('leader locks on Postgres', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database?.close());

  const pool = () => {
    if (database.engine.kind !== 'postgres') throw new Error('not Postgres');
    return database.engine.pool;
  };

  it('lets one holder at a time take a name, and the next once it is released', async () => {
    const name = `test:lock:${Math.random()}`;
    const [a, b] = [createLeaderLock(database, name), createLeaderLock(database, name)];
    expect(await a.acquire()).toBe(true);
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    await a.release();
    expect(await b.acquire()).toBe(true);
    expect(await a.acquire()).toBe(false);
    await b.release();
  });

  it('holds its locks on connections of their own, leaving the pool to requests', async () => {
    const locks = Array.from({ length: 8 }, (_, i) =>
      createLeaderLock(database, `test:pool:${i}:${Math.random()}`),
    );
    for (const lock of locks) expect(await lock.acquire()).toBe(true);
    expect(pool().totalCount - pool().idleCount).toBe(0);
    // Five queries at once on a pool of five: none waits for a lock's connection.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => pool().query('select pg_sleep(0.05), 1 as one')),
    );
    expect(answers.map((r) => r.rows[0]?.one)).toEqual([1, 1, 1, 1, 1]);
    for (const lock of locks) await lock.release();
  });

  it('passes the lock on when the holder’s connection is killed, and takes it back later', async () => {
    const name = `test:kill:${Math.random()}`;
    const [a, b] = [createLeaderLock(database, name), createLeaderLock(database, name)];
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    // The server ends a's session, as a failover or an idle timeout would.
    const killed = await pool().query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_locks
        where locktype = 'advisory' and objid = hashtext($1)::oid and granted`,
      [name],
    );
    expect(killed.rows[0]?.n).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b.acquire()).toBe(true);
    expect(await a.acquire()).toBe(false);
    await b.release();
    expect(await a.acquire()).toBe(true);
    await a.release();
  });

  it('asks its connection whether it still holds the lock at most once a second', async () => {
    const name = `test:trust:${Math.random()}`;
    const lock = createLeaderLock(database, name);
    expect(await lock.acquire()).toBe(true);
    // What the lock's session last ran, as the server saw it.
    const lastQuery = async () => {
      const { rows } = await pool().query<{ query: string }>(
        `select a.query from pg_stat_activity a join pg_locks l on l.pid = a.pid
          where l.locktype = 'advisory' and l.objid = hashtext($1)::oid and l.granted`,
        [name],
      );
      return rows[0]?.query;
    };
    expect(await lastQuery()).toContain('pg_try_advisory_lock');
    for (let i = 0; i < 5; i++) expect(await lock.acquire()).toBe(true);
    expect(await lastQuery()).toContain('pg_try_advisory_lock');
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect(await lock.acquire()).toBe(true);
    expect(await lastQuery()).toBe('select 1');
    await lock.release();
  });
});
