import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { listOwnerWebhook, loadListRows, PAYEES, PAYERS } from '../../test/list-rows.ts';
import { queryRows } from '../db/client.ts';
import { clientIds } from '../db/schema.ts';
import { MAX_OFFSET } from '../http/pages.ts';
import { TOTAL_COUNT_CAP } from './query.ts';

/**
 * Deep pages of `GET /v2/payments` and `GET /v2/request` over 1,100 rows (test/list-rows.ts):
 * cursors that neither skip nor repeat while rows arrive between fetches, rows that share a
 * millisecond, the offset bound, and `total` past the count cap.
 */

const ROWS = 1_100;

let t: TestApp;
let tenant: Tenant;
let load: (from: number, to: number) => Promise<void>;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db, 'Deep pages');
  const [client] = await t.db
    .select({ id: clientIds.id })
    .from(clientIds)
    .where(eq(clientIds.clientId, tenant.backendClientId));
  const owner = {
    accountId: tenant.accountId,
    clientIdRowId: client?.id ?? '',
    webhookId: await listOwnerWebhook(t.db, tenant.accountId),
  };
  load = (from, to) => loadListRows(t.db, owner, from, to);
  await load(1, ROWS);
  // Rows 500–540 paid in one millisecond, apart by microseconds (a JS Date cannot tell them
  // apart) or not at all (then the id orders them).
  await t.db.execute(sql`
    update payments set timestamp = '2025-01-01T00:10:00.123Z'::timestamptz
      + (('x' || payment_reference)::bit(64)::bigint % 4) * interval '1 microsecond'
    where account_id = ${tenant.accountId}
      and payment_reference between lpad(to_hex(500), 16, '0') and lpad(to_hex(540), 16, '0')`);
});
afterAll(async () => {
  await t?.close();
});

interface Page {
  readonly ids: string[];
  readonly pagination: Record<string, unknown> & { nextCursor: string | null };
}

async function get(path: string, query: Record<string, string>) {
  return t.app.inject({
    method: 'GET',
    url: `${path}?${new URLSearchParams(query)}`,
    headers: { 'x-api-key': tenant.apiKey },
  });
}

async function paymentsPage(query: Record<string, string>): Promise<Page> {
  const res = await get('/v2/payments', query);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  return { ids: body.payments.map((p: { id: string }) => p.id), pagination: body.pagination };
}

async function requestsPage(query: Record<string, string>): Promise<Page> {
  const res = await get('/v2/request', query);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  return {
    ids: body.requests.map((r: { requestId: string }) => r.requestId),
    pagination: body.pagination,
  };
}

/** Every page by cursor, calling `between` before each next page is fetched. */
async function walk(
  fetch: (query: Record<string, string>) => Promise<Page>,
  query: Record<string, string>,
  between: (page: number) => Promise<void>,
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  let page = 0;
  do {
    const current: Page = await fetch(cursor === null ? query : { ...query, cursor });
    seen.push(...current.ids);
    cursor = current.pagination.nextCursor;
    if (cursor !== null) await between(++page);
  } while (cursor !== null);
  return seen;
}

let next = ROWS;
/** New, newer rows in every table, as payments and requests keep arriving. */
async function arrive(count: number): Promise<void> {
  const from = next + 1;
  next += count;
  await load(from, next);
}

describe('cursor pages while rows arrive', () => {
  it.each([
    ['every payment', { type: 'direct' }],
    ['a payee', { walletAddress: PAYEES[1] ?? '' }],
    ['a sender, written in lower case', { walletAddress: (PAYERS[2] ?? '').toLowerCase() }],
    ['a currency', { invoiceCurrency: 'USDC-base' }],
  ])('GET /v2/payments (%s) neither skips nor repeats', async (_case, filter) => {
    const query = { ...filter, limit: '100' };
    // What the list held before the walk, read in one page per 100 by offset at once.
    const before: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await paymentsPage({ ...query, offset: String(offset) });
      before.push(...page.ids);
      if (page.ids.length < 100) break;
    }
    const walked = await walk(paymentsPage, query, () => arrive(7));
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked).toEqual(before);
  });

  it('GET /v2/request neither skips nor repeats, narrowed or not', async () => {
    for (const filter of [{}, { walletAddress: (PAYEES[3] ?? '').toLowerCase() }]) {
      const query = { ...filter, limit: '100' };
      const before = await walk(requestsPage, query, async () => {});
      const walked = await walk(requestsPage, query, () => arrive(5));
      expect(new Set(walked).size).toBe(walked.length);
      expect(walked).toEqual(before);
    }
  });

  it('an offset walk over the same arrivals repeats rows: why the cursor exists', async () => {
    const first = await paymentsPage({ type: 'direct', limit: '50' });
    await arrive(3);
    const second = await paymentsPage({ type: 'direct', limit: '50', offset: '50' });
    expect(second.ids.filter((id) => first.ids.includes(id))).toHaveLength(3);
  });
});

describe('bounds and totals', () => {
  it(`counts up to ${TOTAL_COUNT_CAP} exactly and estimates beyond, saying so`, async () => {
    const many = await paymentsPage({ type: 'direct', limit: '10' });
    expect(many.pagination).toMatchObject({ totalExact: false, hasMore: true, offset: 0 });
    expect(many.pagination.total).toBeGreaterThan(TOTAL_COUNT_CAP);
    const [{ n } = { n: 0 }] = await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from payments where account_id = ${tenant.accountId}`,
    );
    // An estimate, from statistics: the right order of magnitude, not the count.
    expect(many.pagination.total).toBeLessThan(n * 10);

    const few = await paymentsPage({ walletAddress: PAYEES[0] ?? '', limit: '10' });
    const [counted] = await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from payments
          where account_id = ${tenant.accountId} and payee = ${PAYEES[0]}`,
    );
    expect(few.pagination).toMatchObject({ total: counted?.n, totalExact: true });
  });

  it('counts a wallet that paid itself once', async () => {
    const self = PAYEES[0] ?? '';
    await t.db.execute(
      sql`update payments set payer_address = payee
          where account_id = ${tenant.accountId} and payee = ${self}`,
    );
    const page = await paymentsPage({ walletAddress: self, limit: '100' });
    const all = await walk(paymentsPage, { walletAddress: self, limit: '100' }, async () => {});
    expect(new Set(all).size).toBe(all.length);
    expect(page.pagination.total).toBe(all.length);
  });

  it.each([
    ['/v2/payments', { type: 'direct' }],
    ['/v2/request', {}],
  ])(`%s: offset up to ${MAX_OFFSET}, then a 400 that points to the cursor`, async (path, q) => {
    expect((await get(path, { ...q, offset: String(MAX_OFFSET) })).statusCode).toBe(200);
    const past = await get(path, { ...q, offset: String(MAX_OFFSET + 1) });
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({
      statusCode: 400,
      message: 'Validation failed',
      errors: [
        {
          field: 'offset',
          message: 'must be <= 10000; page further with cursor (pagination.nextCursor)',
        },
      ],
    });
    const huge = await get(path, { ...q, offset: '1e30' });
    expect(huge.statusCode).toBe(400);
  });

  it('refuses a cursor with an offset, and a cursor it did not make', async () => {
    const first = await paymentsPage({ type: 'direct', limit: '1' });
    const both = await get('/v2/payments', {
      type: 'direct',
      offset: '1',
      cursor: first.pagination.nextCursor ?? '',
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors).toEqual([
      {
        field: 'offset',
        message: 'must not be sent with cursor: a cursor already says where the page starts',
      },
    ]);
    const forged = await get('/v2/payments', { type: 'direct', cursor: 'bm90IGEgY3Vyc29y' });
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({
      message: 'cursor is not one this API returned',
      code: 'invalid_cursor',
    });
  });
});
