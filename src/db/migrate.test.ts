import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';
import { emptyPostgresDatabase } from '../../test/database.ts';
import { createAccount } from '../auth/accounts.ts';
import { type DatabaseHandle, queryRows } from './client.ts';
import { MIGRATIONS_FOLDER, migrateDatabase } from './migrate.ts';
import { DatabaseInUseError, openDatabase } from './open.ts';
import { wrapPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';
import { accounts } from './schema.ts';

const TABLES = [
  'access_rejections',
  'accounts',
  'api_keys',
  'brandings',
  'chain_blocks',
  'chain_checkpoints',
  'client_id_link_intents',
  'client_ids',
  'commerce_actions',
  'commerce_events',
  'commerce_payments',
  'compliance_events',
  'destination_nonces',
  'fee_configs',
  'fee_leg_payments',
  'fee_legs',
  'idempotency_keys',
  'journey_steps',
  'journeys',
  'multicall_children',
  'offramp_transfers',
  'orchestrator_client_links',
  'orchestrator_keys',
  'orchestrators',
  'payee_destinations',
  'payers',
  'payment_daily_totals',
  'payment_details',
  'payment_intents',
  'payments',
  'recurring_executions',
  'recurring_payouts',
  'request_schedules',
  'requests',
  'safe_transactions',
  'sandbox_chains',
  'screening_results',
  'secure_payments',
  'sessions',
  'users',
  'wallet_challenges',
  'webhook_attempts',
  'webhook_deliveries',
  'webhooks',
];

const journal = JSON.parse(
  readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
) as {
  entries: unknown[];
};

async function tables(handle: DatabaseHandle): Promise<string[]> {
  const rows = await queryRows<{ table_name: string }>(
    handle.db,
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return rows.map((row) => row.table_name);
}

async function appliedMigrations(handle: DatabaseHandle): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    handle.db,
    sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
  );
  return Number(rows[0]?.n);
}

/**
 * Each test creates and migrates embedded databases afresh (7 s each alone): up to 19 s a test
 * while CI's other worker is busy, against the suite's 30 s default.
 */
const FRESH_DATABASES = { timeout: 120_000 };

describe('migrations on PGlite', FRESH_DATABASES, () => {
  it('create every table on an empty database, and a second run changes nothing', async () => {
    const handle = wrapPglite(await PGlite.create());
    await migrateDatabase(handle);
    expect(await tables(handle)).toEqual(TABLES);
    await migrateDatabase(handle);
    expect(await appliedMigrations(handle)).toBe(journal.entries.length);
    await handle.close();
  });

  it('give payments recorded before 0016 their request’s search columns (0017)', async () => {
    const handle = wrapPglite(await PGlite.create());
    await migrateDatabase(handle);
    const { accountId } = await createAccount(handle.db, 'Old');
    const [request] = await queryRows<{ id: string }>(
      handle.db,
      sql`insert into requests (request_id, account_id, network, invoice_currency, payment_currency,
            expected_amount, payee, salt, payment_reference, reference_topic)
          values ('01' || repeat('a', 64), ${accountId}, 'base', 'EUR', 'USDC-base', 100,
            '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 'salt', 'aaaaaaaaaaaaaaaa', '0x00')
          returning id`,
    );
    // A payment as 0015 knew it: no search columns.
    await handle.db.execute(
      sql`insert into payments (account_id, request_row_id, network, tx_hash, log_index,
            block_number, block_hash, amount, fee_amount, token_address, payee,
            payment_reference, timestamp)
          values (${accountId}, ${request?.id}, 'base', ${`0x${'1'.repeat(64)}`}, 0, 1,
            ${`0x${'2'.repeat(64)}`}, 100, 0, ${`0x${'3'.repeat(40)}`},
            '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 'aaaaaaaaaaaaaaaa', now())`,
    );
    await handle.db.execute(
      sql`update payments set invoice_currency_key = null, payment_currency_key = null, conversion = null`,
    );
    const backfill = readFileSync(
      join(MIGRATIONS_FOLDER, '0017_backfill_payment_search.sql'),
      'utf8',
    );
    await handle.db.execute(sql.raw(backfill));
    const [row] = await queryRows<{ i: string; p: string; c: boolean }>(
      handle.db,
      sql`select invoice_currency_key as i, payment_currency_key as p, conversion as c from payments`,
    );
    expect(row).toEqual({ i: 'eur', p: 'usdc-base', c: true });
    await handle.close();
  });

  it('key attempts by delivery and attempt, keeping the first of an attempt logged twice (0021)', async () => {
    const handle = wrapPglite(await PGlite.create());
    await migrateDatabase(handle);
    const { accountId } = await createAccount(handle.db, 'Old');
    // The log as 0020 left it: its own uuid key, a foreign key and an index on the delivery.
    for (const statement of [
      'alter table webhook_attempts drop constraint webhook_attempts_delivery_id_attempt_pk',
      'alter table webhook_attempts add column id uuid primary key default gen_random_uuid()',
      `alter table webhook_attempts add constraint webhook_attempts_delivery_id_webhook_deliveries_id_fk
         foreign key (delivery_id) references webhook_deliveries(id)`,
      'create index webhook_attempts_delivery_id_index on webhook_attempts (delivery_id)',
    ]) {
      await handle.db.execute(sql.raw(statement));
    }
    await handle.db.execute(
      sql`insert into webhooks (id, account_id, url, secret_sealed) values ('wh_1', ${accountId}, 'https://example.com/', 'sealed')`,
    );
    await handle.db.execute(
      sql`insert into webhook_deliveries (id, webhook_id, event, body, next_attempt_at)
          values ('d1', 'wh_1', 'payment.confirmed', '{}', now())`,
    );
    await handle.db.execute(
      sql`insert into webhook_attempts (delivery_id, attempt, status_code, duration_ms, at) values
            ('d1', 1, 500, 3, '2026-01-01T00:00:00Z'), ('d1', 1, 502, 4, '2026-01-01T00:00:01Z'),
            ('d1', 2, 200, 5, '2026-01-01T00:01:00Z')`,
    );
    const migration = readFileSync(
      join(MIGRATIONS_FOLDER, '0021_attempts_by_delivery.sql'),
      'utf8',
    );
    for (const statement of migration.split('--> statement-breakpoint')) {
      await handle.db.execute(sql.raw(statement));
    }
    const rows = await queryRows<{ attempt: number; status_code: number }>(
      handle.db,
      sql`select attempt, status_code from webhook_attempts order by attempt`,
    );
    expect(rows).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 200 },
    ]);
    await expect(
      handle.db.execute(
        sql`insert into webhook_attempts (delivery_id, attempt, duration_ms) values ('d1', 2, 1)`,
      ),
    ).rejects.toThrow();
    await handle.close();
  });

  it('keep data in DATA_DIR across restarts, and one process at a time owns it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payreq-db-'));
    const first = await openDatabase({ databaseUrl: null, dataDir });
    await migrateDatabase(first);
    const { accountId } = await createAccount(first.db, 'Persistent');
    await expect(openDatabase({ databaseUrl: null, dataDir })).rejects.toThrow(DatabaseInUseError);
    await first.close();

    const second = await openDatabase({ databaseUrl: null, dataDir });
    await migrateDatabase(second);
    const rows = await second.db.select().from(accounts);
    expect(rows.map((r) => r.id)).toEqual([accountId]);
    await second.close();
  });
});

const source = inject('testDatabase');

describe.runIf(source.kind === 'postgres')('migrations on Postgres', () => {
  it('create every table, with several processes migrating at once', async () => {
    if (source.kind !== 'postgres') return;
    const database = await emptyPostgresDatabase();
    const url = database.url;
    const handles = [openPostgres(url, 2), openPostgres(url, 2), openPostgres(url, 2)];
    try {
      await Promise.all(handles.map((h) => migrateDatabase(h)));
      expect(await tables(handles[0] as DatabaseHandle)).toEqual(TABLES);
      expect(await appliedMigrations(handles[0] as DatabaseHandle)).toBe(journal.entries.length);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await database.drop();
    }
  });
});
