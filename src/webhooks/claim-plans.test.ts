import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase } from '../../test/database.ts';
import { createAccount } from '../auth/accounts.ts';
import { type Database, type DatabaseHandle, queryRows } from '../db/client.ts';
import { webhooks } from '../db/schema.ts';
import { cancelPaymentDeliveries } from '../requests/payment-events.ts';
import { type AttemptRecord, claimDue, recordAttempts } from './claims.ts';
import { enqueue } from './outbox.ts';

/**
 * The outbox starts empty and grows. The dispatcher's claim and record must find their rows by
 * key once it is large, however small it was when they first ran on a connection: a plan made
 * then and kept (a named statement's generic plan) reads the whole table on every batch, which
 * made a dispatcher slower with every delivery it sent. Postgres only: the table's size and the
 * statistics that count scans are a server's.
 */

/**
 * Rows of the grown table: at this size, with the record's rows known only from its JSON,
 * Postgres chose to read the table and hash them (the reason the record names its ids).
 */
const LARGE = 15_000;
const source = inject('testDatabase');

describe.runIf(source.kind === 'postgres')('dispatcher statements on a grown outbox', () => {
  let database: DatabaseHandle;
  let webhookId: string;
  beforeAll(async () => {
    database = await openTestDatabase();
    const { accountId } = await createAccount(database.db, 'Growing outbox');
    webhookId = `whk_${randomBytes(8).toString('hex')}`;
    await database.db
      .insert(webhooks)
      .values({ id: webhookId, accountId, url: 'http://127.0.0.1:1/', secretSealed: 'x' });
  });
  afterAll(() => database.close());

  /** Claims what is due and records each claim as delivered; the number claimed. */
  async function sendDue(db: Database, now: Date): Promise<number> {
    const claimed = await claimDue(db, now, new Date(now.getTime() + 60_000), 100);
    await recordAttempts(
      db,
      claimed.map(
        (row): AttemptRecord => ({
          deliveryId: row.id,
          attempt: row.attempts,
          status: 'delivered',
          statusCode: 200,
          error: null,
          responseExcerpt: null,
          durationMs: 1,
          at: now,
          nextAttemptAt: null,
        }),
      ),
    );
    return claimed.length;
  }

  it('claims and records by key, not by reading the table', async () => {
    const { db } = database;
    const events = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ event: 'payment.confirmed', payload: { i } }));
    // While the table is small, on the pool's one connection (each call takes the connection
    // the last one gave back).
    for (let run = 0; run < 6; run++) {
      await enqueue(db, new Date(), [webhookId], events(3));
      expect(await sendDue(db, new Date())).toBe(3);
    }
    // Nothing of theirs is kept on the connection to be reused: a named statement's plan would
    // be the small table's.
    const kept = await queryRows<{ name: string }>(
      db,
      sql`select name from pg_prepared_statements where statement like '%webhook_deliveries%'`,
    );
    expect(kept).toEqual([]);
    // The table grows (delivered rows, as a running service leaves them), with no ANALYZE.
    await db.execute(sql`
      insert into webhook_deliveries (id, webhook_id, event, body, status, next_attempt_at, created_at)
      select 'old_' || g, ${webhookId}, 'payment.confirmed', '{}', 'delivered', now(), now()
      from generate_series(1, ${LARGE}) g`);
    await enqueue(db, new Date(), [webhookId], events(50));

    await db.transaction(async (tx) => {
      // This backend's counts not yet flushed to the shared statistics: read before and after.
      const scans = async () => {
        const [row] = await queryRows<{
          seq_scan: string;
          idx_scan: string;
          n_tup_hot_upd: string;
        }>(
          tx,
          sql`select seq_scan, idx_scan, n_tup_hot_upd from pg_stat_xact_user_tables
              where relname = 'webhook_deliveries'`,
        );
        return {
          seq: Number(row?.seq_scan ?? 0),
          idx: Number(row?.idx_scan ?? 0),
          hot: Number(row?.n_tup_hot_upd ?? 0),
        };
      };
      const before = await scans();
      expect(await sendDue(tx, new Date())).toBe(50);
      const after = await scans();
      expect(after.seq - before.seq).toBe(0);
      expect(after.idx - before.idx).toBeGreaterThan(0);
      // Each claim rewrote its row in place (room kept on the page, migration 0023): no index
      // entries for it. The record changes the status, which is indexed, so it cannot.
      expect(after.hot - before.hot).toBeGreaterThanOrEqual(45);
    });
  });
  it("cancels a reorganised payment's pending deliveries by key", async () => {
    // The table as the first test left it: thousands of delivered rows, none analyzed.
    const paymentId = randomUUID();
    await enqueue(
      database.db,
      new Date(),
      [webhookId],
      [{ event: 'payment.confirmed', payload: {} }],
      {
        paymentId,
      },
    );
    await database.db.transaction(async (tx) => {
      const scans = async () => {
        const [row] = await queryRows<{ seq_scan: string; idx_scan: string }>(
          tx,
          sql`select seq_scan, idx_scan from pg_stat_xact_user_tables
              where relname = 'webhook_deliveries'`,
        );
        return { seq: Number(row?.seq_scan ?? 0), idx: Number(row?.idx_scan ?? 0) };
      };
      const before = await scans();
      await cancelPaymentDeliveries(tx, [paymentId]);
      const after = await scans();
      expect(after.seq - before.seq).toBe(0);
      expect(after.idx - before.idx).toBe(1);
      const cancelled = await queryRows<{ status: string }>(
        tx,
        sql`select status from webhook_deliveries where payment_id = ${paymentId}`,
      );
      expect(cancelled).toEqual([{ status: 'failed' }]);
    });
    // The index holds the queue only: a delivered row has no entry to write or to skip.
    const [index] = await queryRows<{ indexdef: string }>(
      database.db,
      sql`select indexdef from pg_indexes where indexname = 'webhook_deliveries_pending_payment_index'`,
    );
    expect(index?.indexdef).toContain("WHERE (status = 'pending'::webhook_delivery_status)");
  });
  it('walks the queue through its index on the queue connections, with no statistics', async () => {
    // The table as the test above left it: thousands of rows, none analyzed.
    await enqueue(
      database.db,
      new Date(),
      [webhookId],
      [{ event: 'payment.confirmed', payload: {} }],
    );
    const plan = async (db: Database) =>
      (
        await queryRows<{ 'QUERY PLAN': string }>(
          db,
          sql`explain select id from webhook_deliveries
              where status = 'pending' and next_attempt_at <= now()
                and (locked_until is null or locked_until <= now())
              order by next_attempt_at limit 100 for update skip locked`,
        )
      )
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    const [setting] = await queryRows<{ enable_bitmapscan: string }>(
      database.queue,
      sql`show enable_bitmapscan`,
    );
    expect(setting?.enable_bitmapscan).toBe('off');
    const walk = await plan(database.queue);
    expect(walk).toContain('Index Scan using webhook_deliveries_pending_index');
    expect(walk).not.toContain('Bitmap');
    // The others plan as before: the lists' searches combine indexes with bitmaps.
    const [other] = await queryRows<{ enable_bitmapscan: string }>(
      database.db,
      sql`show enable_bitmapscan`,
    );
    expect(other?.enable_bitmapscan).toBe('on');
  });
});
