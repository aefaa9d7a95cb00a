import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { listOwnerWebhook, loadListRows, rowFacts } from '../../test/list-rows.ts';
import { clientIds, payments, requests } from '../db/schema.ts';
import { exportPaymentsCsv, PAYMENT_EXPORT_COLUMNS } from './export.ts';
import { FILTER_REQUIRED_MESSAGE } from './search.ts';

/**
 * `GET /v2/dashboard/payments/export` on the real app: every payment a search finds, as CSV, in
 * the order and with the values of `GET /v2/payments`, across keyset pages; a cell a
 * spreadsheet would run as a formula made text; a search without a filter refused before any
 * byte is sent; another account's payments never in it.
 */

const ROWS = 40;
const FROM = 'fromDate=2025-01-01T00:00:00Z';

let t: TestApp;
let shop: Tenant;
let rival: Tenant;

/** RFC 4180 records (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    const next = text[i + 1];
    i += 1;
    if (quoted && char === '"' && next === '"') {
      field += '"';
      i += 1;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (quoted) {
      field += char;
    } else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && next === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 1;
    } else {
      field += char;
    }
  }
  return records;
}

beforeAll(async () => {
  t = await createTestApp();
  shop = await createTenant(t.db, 'Exporter');
  rival = await createTenant(t.db, 'Rival');
  const [client] = await t.db
    .select({ id: clientIds.id })
    .from(clientIds)
    .where(eq(clientIds.clientId, shop.backendClientId));
  const webhookId = await listOwnerWebhook(t.db, shop.accountId);
  await loadListRows(
    t.db,
    { accountId: shop.accountId, clientIdRowId: client?.id ?? '', webhookId },
    1,
    ROWS,
  );
  await t.db
    .update(requests)
    .set({ reference: '=HYPERLINK("http://evil.example","x")' })
    .where(eq(requests.requestId, rowFacts(3).requestId));
}, 120_000);
afterAll(async () => {
  await t?.close();
});

function exportOf(tenant: Tenant, query: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/dashboard/payments/export?${query}`,
    headers: { 'x-api-key': tenant.apiKey },
  });
}

describe('GET /v2/dashboard/payments/export', () => {
  it('holds every payment the search finds, as GET /v2/payments shows them', async () => {
    const res = await exportOf(shop, FROM);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="payments.csv"');
    const [header, ...rows] = parseCsv(res.body);
    expect(header).toEqual([...PAYMENT_EXPORT_COLUMNS]);
    expect(rows).toHaveLength(ROWS);

    const search = await t.app.inject({
      method: 'GET',
      url: `/v2/payments?${FROM}&limit=100`,
      headers: { 'x-api-key': shop.apiKey },
    });
    const found = search.json().payments as {
      id: string;
      timestamp: string;
      amount: string;
      currency: string;
      paidCurrency: string;
      sourceTxHash: string;
      payerAddress: string;
      request: { requestId: string; reference: string };
    }[];
    expect(rows.map((row) => row[0])).toEqual(found.map((payment) => payment.id));
    const column = (name: (typeof PAYMENT_EXPORT_COLUMNS)[number]) =>
      PAYMENT_EXPORT_COLUMNS.indexOf(name);
    for (const [i, payment] of found.entries()) {
      const row = rows[i] ?? [];
      expect(row[column('timestamp')]).toBe(payment.timestamp);
      expect(row[column('amount')]).toBe(payment.amount);
      expect(row[column('currency')]).toBe(payment.currency);
      expect(row[column('paidCurrency')]).toBe(payment.paidCurrency);
      expect(row[column('txHash')]).toBe(payment.sourceTxHash);
      expect(row[column('payer')]).toBe(payment.payerAddress);
      expect(row[column('requestId')]).toBe(payment.request.requestId);
    }
    // The formula is text in a spreadsheet; every other reference as written.
    const tricky = rows.find((row) => row[column('requestId')] === rowFacts(3).requestId);
    expect(tricky?.[column('reference')]).toBe(`'=HYPERLINK("http://evil.example","x")`);
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
  });

  it('walks the search page by page, each payment once', async () => {
    const whole: string[] = [];
    for await (const chunk of exportPaymentsCsv(t.db, t.chains, scope(), {
      fromDate: '2025-01-01T00:00:00Z',
    })) {
      whole.push(chunk);
    }
    const paged: string[] = [];
    for await (const chunk of exportPaymentsCsv(
      t.db,
      t.chains,
      scope(),
      { fromDate: '2025-01-01T00:00:00Z' },
      7,
    )) {
      paged.push(chunk);
    }
    // The header and six pages of 7 (the last one short): the same bytes as one page.
    expect(paged).toHaveLength(1 + Math.ceil(ROWS / 7));
    expect(paged.join('')).toBe(whole.join(''));
    expect(new Set(parseCsv(paged.join('')).map((row) => row[0])).size).toBe(ROWS + 1);
  });

  it('filters as the search does, and shows another account nothing of this one', async () => {
    const one = parseCsv((await exportOf(shop, `requestId=${rowFacts(5).requestId}`)).body);
    expect(one).toHaveLength(2);
    expect(one[1]?.[PAYMENT_EXPORT_COLUMNS.indexOf('reference')]).toBe('order-5');
    const theirs = await exportOf(rival, FROM);
    expect(theirs.statusCode).toBe(200);
    expect(parseCsv(theirs.body)).toEqual([[...PAYMENT_EXPORT_COLUMNS]]);
  });

  it('refuses a search without a filter, or with a malformed one, before any row', async () => {
    const none = await exportOf(shop, '');
    expect(none.statusCode).toBe(400);
    expect(none.json().errors).toEqual([
      { field: 'querystring', message: FILTER_REQUIRED_MESSAGE },
    ]);
    const bad = await exportOf(shop, 'fromDate=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('fromDate');
  });
});

function scope() {
  return { accountId: shop.accountId, clientIdId: null };
}

// Every payment of the list rows is recorded in the account: a sanity check of the set-up.
it('loads the rows it exports', async () => {
  expect(await t.db.$count(payments, eq(payments.accountId, shop.accountId))).toBe(ROWS);
});
