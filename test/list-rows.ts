import { sql } from 'drizzle-orm';
import { getAddress } from 'viem';
import type { Database } from '../src/db/client.ts';
import { webhooks } from '../src/db/schema.ts';

/**
 * Rows for the list tests and the list bench, written by the database itself
 * (`generate_series`), so 100,000 rows load in seconds and 1,000,000 in about a minute. Row i
 * of each table is deterministic, so a range can be loaded in steps (rows 1–1,000, then up to
 * 1,000,000) and the facts below hold at every size.
 *
 * One account owns every row: the worst case for its lists. Per row i:
 * - a request and its payment, created/paid at BASE + i seconds;
 * - payees cycle through PAYEES (i % 4), senders through PAYERS (i % 8), every 5th payment
 *   has a connected wallet (EOA); addresses are stored checksummed, as the service stores them;
 * - currencies: USDC-base, every 10th DAI-base, every 50th a USD invoice paid in USDC-base
 *   (a conversion); every 2nd request made with the client ID;
 * - merchant reference `order-<i>`, payment reference = i in 16 hex digits, two payments per
 *   transaction (tx = i / 2, log index i % 2);
 * - a link (every 3rd a payout) and a webhook delivery (id ordered like a ULID).
 */

export const BASE_TIME = new Date('2025-01-01T00:00:00Z');

const address = (byte: string) => getAddress(`0x${byte.repeat(20)}`);
export const PAYEES = ['a1', 'a2', 'a3', 'a4'].map(address);
export const PAYERS = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8'].map(address);
export const EOA = address('c1');

export interface ListOwner {
  readonly accountId: string;
  /** Row id (uuid) of a client ID of the account. */
  readonly clientIdRowId: string;
  readonly webhookId: string;
}

/** The i-th row's ids, as the loader writes them. */
export const rowFacts = (i: number) => ({
  requestId: `01${i.toString(16).padStart(64, '0')}`,
  paymentReference: i.toString(16).padStart(16, '0'),
  reference: `order-${i}`,
  txHash: `0x${Math.floor(i / 2)
    .toString(16)
    .padStart(64, '0')}`,
});

const pick = (values: readonly string[], index: ReturnType<typeof sql>) =>
  sql`(array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[])[${index} + 1]`;

/** A webhook of the account for the deliveries, if it has none. */
export async function listOwnerWebhook(db: Database, accountId: string): Promise<string> {
  const id = `whk_list_${accountId.slice(0, 8)}`;
  await db
    .insert(webhooks)
    .values({ id, accountId, url: 'http://127.0.0.1:9/hook', secretSealed: 'unused' })
    .onConflictDoNothing();
  return id;
}

/** Loads rows `from`..`to` (inclusive) of every list table, then refreshes the statistics. */
export async function loadListRows(
  db: Database,
  owner: ListOwner,
  from: number,
  to: number,
): Promise<void> {
  const at = (offset = 0) =>
    sql`${BASE_TIME.toISOString()}::timestamptz + (i + ${offset}) * interval '1 second'`;
  const payee = pick(PAYEES, sql`i % 4`);
  await db.execute(sql`
    insert into requests (request_id, account_id, client_id_id, network, invoice_currency,
      payment_currency, expected_amount, payee, reference, salt, payment_reference,
      reference_topic, status, created_at)
    select '01' || lpad(to_hex(i), 64, '0'), ${owner.accountId},
      case when i % 2 = 0 then ${owner.clientIdRowId}::uuid end, 'base',
      case when i % 50 = 0 then 'USD' when i % 10 = 0 then 'DAI-base' else 'USDC-base' end,
      case when i % 10 = 0 and i % 50 <> 0 then 'DAI-base' else 'USDC-base' end,
      1000000, ${payee}, 'order-' || i, lpad(to_hex(i), 16, '0'), lpad(to_hex(i), 16, '0'),
      -- Unique per network, as keccak256 of the reference is (Postgres cannot compute that).
      '0x' || lpad(to_hex(i), 64, '0'), 'paid', ${at()}
    from generate_series(${from}::int, ${to}::int) i`);
  await db.execute(sql`
    insert into payments (account_id, request_row_id, network, tx_hash, log_index, block_number,
      block_hash, amount, fee_amount, token_address, payee, payer_address, payer_eoa_address,
      payment_reference, timestamp, client_id_id, conversion, invoice_currency_key,
      payment_currency_key)
    select r.account_id, r.id, 'base', '0x' || lpad(to_hex(i / 2), 64, '0'), i % 2, i / 2,
      '0x' || lpad('0', 64, '0'), 1000000, 0, null, r.payee, ${pick(PAYERS, sql`i % 8`)},
      case when i % 5 = 0 then ${EOA} end, r.payment_reference, ${at(30)}, r.client_id_id,
      r.invoice_currency <> r.payment_currency, lower(r.invoice_currency),
      lower(r.payment_currency)
    from generate_series(${from}::int, ${to}::int) i
    join requests r on r.request_id = '01' || lpad(to_hex(i), 64, '0')`);
  await db.execute(sql`
    insert into secure_payments (token, account_id, payout, network, expires_at, created_at)
    select lpad(to_hex(i), 26, '0'), ${owner.accountId}, i % 3 = 0, 'base',
      ${at()} + interval '7 days', ${at()}
    from generate_series(${from}::int, ${to}::int) i`);
  await db.execute(sql`
    insert into webhook_deliveries (id, webhook_id, event, body, status, attempts,
      next_attempt_at, delivered_at, created_at)
    select '01' || lpad(i::text, 24, '0'), ${owner.webhookId}, 'payment.confirmed', '{}',
      'delivered', 1, ${at()}, ${at()}, ${at()}
    from generate_series(${from}::int, ${to}::int) i`);
  await db.execute(sql`analyze requests, payments, secure_payments, webhook_deliveries`);
}
