import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../auth/accounts.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { wrapPglite } from '../db/pglite.ts';
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts';
import { type Claimed, claimDue, handBack, recordAttempts } from './claims.ts';
import { enqueue } from './outbox.ts';

/**
 * The dispatcher's statements on a PGlite data dir opened before its migrations ran, as
 * `npm start` opens a new one: PGlite learns the array types it can send when it opens, so
 * an array of an enum the migrations create later cannot be a parameter.
 */

const database = wrapPglite(await PGlite.create());
beforeAll(() => migrateDatabase(database));
afterAll(() => database.close());

/** A webhook of a new account; its id. */
async function endpoint(account: string): Promise<string> {
  const { accountId } = await createAccount(database.db, account);
  const id = `wh_${randomBytes(8).toString('hex')}`;
  await database.db
    .insert(webhooks)
    .values({ id, accountId, url: 'http://127.0.0.1:1/', secretSealed: 'x' });
  return id;
}

it('claims and records attempts on a database migrated after it was opened', async () => {
  const { db } = database;
  const id = await endpoint('Fresh');
  const now = new Date();
  const ids = await enqueue(
    db,
    now,
    [id],
    [
      { event: 'payment.confirmed', payload: { n: 1 } },
      { event: 'payment.partial', payload: { n: 2 } },
    ],
  );
  const claimed = await claimDue(db, now, new Date(now.getTime() + 60_000), 10);
  expect(claimed.map((row) => row.id).sort()).toEqual([...ids].sort());
  const [first, second] = ids;
  await recordAttempts(db, [
    {
      deliveryId: first ?? '',
      attempt: 1,
      status: 'delivered',
      statusCode: 204,
      error: null,
      responseExcerpt: 'ok',
      durationMs: 3,
      at: now,
      nextAttemptAt: null,
    },
    {
      deliveryId: second ?? '',
      attempt: 1,
      status: 'pending',
      statusCode: 500,
      error: 'HTTP 500',
      responseExcerpt: null,
      durationMs: 4,
      at: now,
      nextAttemptAt: new Date(now.getTime() + 10_000),
    },
  ]);
  const rows = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id));
  const byId = new Map(rows.map((row) => [row.id, row]));
  expect(byId.get(first ?? '')).toMatchObject({
    status: 'delivered',
    lastStatusCode: 204,
    lockedUntil: null,
  });
  expect(byId.get(second ?? '')).toMatchObject({
    status: 'pending',
    lastError: 'HTTP 500',
    lockedUntil: null,
  });
  expect(await db.select().from(webhookAttempts)).toHaveLength(2);
});

it('records an error text Postgres could not hold as it is, with replacement characters', async () => {
  const { db } = database;
  const id = await endpoint('Odd errors');
  const now = new Date();
  const [delivery] = await enqueue(db, now, [id], [{ event: 'payment.confirmed', payload: {} }]);
  await claimDue(db, now, new Date(now.getTime() + 60_000), 10);
  await recordAttempts(db, [
    {
      deliveryId: delivery ?? '',
      attempt: 1,
      status: 'pending',
      statusCode: null,
      // A lone surrogate and a NUL: neither is text Postgres stores.
      error: 'socket \ud800 closed \u0000 "early"',
      responseExcerpt: null,
      durationMs: 1,
      at: now,
      nextAttemptAt: new Date(now.getTime() + 10_000),
    },
  ]);
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, delivery ?? ''));
  expect(row?.lastError).toBe('socket \ufffd closed \ufffd "early"');
  expect(row?.lockedUntil).toBeNull();
});

it('gives back only what its own claim still holds: the same attempt under the same lease', async () => {
  const { db } = database;
  const id = await endpoint('Given back');
  const now = new Date();
  const [delivery] = await enqueue(db, now, [id], [{ event: 'payment.confirmed', payload: {} }]);
  const lease = new Date(now.getTime() + 60_123);
  const [claimed] = await claimDue(db, now, lease, 10);
  if (!claimed || claimed.id !== delivery) throw new Error('nothing claimed');
  expect(claimed.leased_until_ms).toBe(lease.getTime());
  // Its lease ran out; another dispatcher claimed it, gave it back, and claimed it again: the
  // same attempt number, another lease. This claim's hand-back leaves it alone.
  const other = new Date(lease.getTime() + 5_000);
  await db
    .update(webhookDeliveries)
    .set({ lockedUntil: other })
    .where(eq(webhookDeliveries.id, claimed.id));
  await handBack(db, [claimed]);
  const row = async () =>
    (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, claimed.id)))[0];
  expect(await row()).toMatchObject({ attempts: 1, lockedUntil: other });
  // Under its own lease, it goes back: unleased, its attempt uncounted.
  await handBack(db, [{ ...claimed, leased_until_ms: other.getTime() }]);
  expect(await row()).toMatchObject({ attempts: 0, lockedUntil: null });
});

it('logs an attempt whose row was claimed again since, and leaves the row to that claim', async () => {
  const { db } = database;
  const id = await endpoint('Claimed again');
  const now = new Date();
  const [delivery] = await enqueue(db, now, [id], [{ event: 'payment.confirmed', payload: {} }]);
  const mine = (rows: readonly Claimed[]) => rows.find((row) => row.id === delivery);
  const claimed = mine(await claimDue(db, now, new Date(now.getTime() + 60_000), 10));
  if (!claimed) throw new Error('nothing claimed');
  // Its lease ran out mid-attempt, and another dispatcher claimed it: attempt 2, its own lease.
  const later = new Date(now.getTime() + 120_000);
  const again = mine(await claimDue(db, new Date(now.getTime() + 60_001), later, 10));
  expect(again).toMatchObject({ attempts: 2 });
  await recordAttempts(db, [
    {
      deliveryId: claimed.id,
      attempt: claimed.attempts,
      status: 'delivered',
      statusCode: 200,
      error: null,
      responseExcerpt: null,
      durationMs: 4,
      at: now,
      nextAttemptAt: null,
    },
  ]);
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, claimed.id));
  expect(row).toMatchObject({ status: 'pending', attempts: 2, lockedUntil: later });
  const log = await db
    .select({ attempt: webhookAttempts.attempt, statusCode: webhookAttempts.statusCode })
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, claimed.id));
  expect(log).toEqual([{ attempt: 1, statusCode: 200 }]);
});
