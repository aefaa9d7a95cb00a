import { eq, inArray } from 'drizzle-orm';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant } from '../../test/fixtures.ts';
import { ulid } from '../base/ulid.ts';
import { requests, securePayments } from '../db/schema.ts';
import { EXPORT_COLUMNS, EXPORT_PAGE_ROWS, exportRequestsCsv } from './export.ts';
import { insertRequests, type RequestRow } from './requests.ts';

/**
 * `GET /v2/dashboard/requests/export` on the real app: the signed-in account's requests as CSV,
 * every row checked against the database across several keyset pages, quoting that survives
 * commas, quotes and line breaks, and no cell a spreadsheet would run as a formula.
 */

const PAYEE = getAddress(`0x${'a1'.repeat(20)}`);
const PAYER = getAddress(`0x${'b2'.repeat(20)}`);
/** More than two pages of the route's reads. */
const INCOMING_ROWS = EXPORT_PAGE_ROWS * 2 + 234;
const OUTGOING_ROWS = 7;
const TRICKY_REFERENCES = [
  'plain',
  'with, a comma',
  'with "quotes"',
  'two\nlines',
  'crlf\r\nend',
  '=HYPERLINK("http://evil.example","click")',
  '+1+2',
  '-3',
  '@SUM(A1:A2)',
];

interface Session {
  readonly accountId: string;
  readonly headers: Record<string, string>;
}

let t: TestApp;
let shop: Session;
let rival: Session;
let registered = 0;

async function register(): Promise<Session> {
  registered += 1;
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email: `export${registered}@example.com`, password: 'a long enough password' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json();
  return { accountId: body.accountId, headers: { authorization: `Bearer ${body.sessionToken}` } };
}

function newRequest(accountId: string, i: number, reference: string | null) {
  const network = t.chains.network('base');
  const usdc = t.chains.currency('USDC-base');
  if (!network || !usdc) throw new Error('no USDC on base');
  return {
    accountId,
    clientIdId: null,
    network,
    invoiceCurrency: usdc,
    paymentCurrency: usdc,
    expectedAmount: BigInt(i + 1) * 1_000_001n,
    payee: PAYEE,
    reference,
  };
}

/** A payout link of the account holding `rows`: their flow is outgoing. */
async function payoutLink(accountId: string, rows: readonly RequestRow[]): Promise<string> {
  const token = ulid();
  const [link] = await t.db
    .insert(securePayments)
    .values({
      token,
      accountId,
      network: 'base',
      payout: true,
      creatorWallet: PAYER,
      expiresAt: new Date('2027-01-01T00:00:00Z'),
    })
    .returning({ id: securePayments.id });
  if (!link) throw new Error('no link');
  await t.db
    .update(requests)
    .set({ securePaymentId: link.id, payer: PAYER })
    .where(
      inArray(
        requests.id,
        rows.map((r) => r.id),
      ),
    );
  return token;
}

/** RFC 4180, as a spreadsheet reads it: records of fields, quoted fields may hold anything. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  expect(field, 'the file ends with CRLF').toBe('');
  expect(record).toEqual([]);
  return records;
}

/** What a row must say about a request, as the database has it now. */
async function expectedRows(accountId: string, token: string | null, ids: readonly string[]) {
  const rows = await t.db
    .select()
    .from(requests)
    .where(inArray(requests.id, [...ids]));
  rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
  expect(rows.every((r) => r.accountId === accountId)).toBe(true);
  return rows.map((r) => {
    const whole = r.expectedAmount / 1_000_000n;
    const fraction = (r.expectedAmount % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
    const reference = r.reference ?? '';
    return [
      r.requestId,
      `0x${r.paymentReference}`,
      r.createdAt.toISOString(),
      r.status,
      fraction === '' ? `${whole}` : `${whole}.${fraction}`,
      'USDC-base',
      'USDC-base',
      'base',
      PAYEE,
      r.payer ?? '',
      /^[=+\-@\t\r]/.test(reference) ? `'${reference}` : reference,
      r.status === 'paid' ? '1.000001' : '0',
      r.paidAt?.toISOString() ?? '',
      token ?? '',
    ];
  });
}

let incomingIds: string[];
let outgoingIds: string[];
let outgoingToken: string;

beforeAll(async () => {
  t = await createTestApp();
  shop = await register();
  rival = await register();
  // Several inserts, so that createdAt varies and ties within one insert are broken by id.
  const incoming: RequestRow[] = [];
  for (let start = 0; start < INCOMING_ROWS; start += 300) {
    const batch = [...Array(Math.min(300, INCOMING_ROWS - start)).keys()].map((k) => {
      const i = start + k;
      return newRequest(
        shop.accountId,
        i,
        i % 50 === 0
          ? (TRICKY_REFERENCES[(i / 50) % TRICKY_REFERENCES.length] ?? null)
          : i % 3 === 0
            ? null
            : `order-${i}`,
      );
    });
    incoming.push(...(await insertRequests(t.db, batch)));
    t.clock.advance(1_000);
  }
  const first = incoming[0];
  if (!first) throw new Error('no rows');
  await t.db
    .update(requests)
    .set({
      status: 'paid',
      totalAmountPaid: first.expectedAmount,
      paidAt: new Date('2026-02-01T00:00:00Z'),
    })
    .where(eq(requests.id, first.id));
  incomingIds = incoming.map((r) => r.id);
  const outgoing = await insertRequests(
    t.db,
    [...Array(OUTGOING_ROWS).keys()].map((i) => newRequest(shop.accountId, i, `payout-${i}`)),
  );
  outgoingIds = outgoing.map((r) => r.id);
  outgoingToken = await payoutLink(shop.accountId, outgoing);
  // The rival's own request, with the same payee: never in the shop's file.
  await insertRequests(t.db, [newRequest(rival.accountId, 0, 'rival-secret')]);
});
afterAll(() => t.close());

function exportCsv(flow: string, headers: Record<string, string> = shop.headers) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/dashboard/requests/export?flow=${flow}`,
    headers,
  });
}

describe('GET /v2/dashboard/requests/export', () => {
  it('streams every incoming request of the account, newest first, each row exact, as an attachment', async () => {
    const res = await exportCsv('incoming');
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="requests-incoming.csv"');
    expect(res.headers['cache-control']).toBe('no-store');
    const [header, ...rows] = parseCsv(res.body);
    expect(header).toEqual([...EXPORT_COLUMNS]);
    expect(rows).toHaveLength(INCOMING_ROWS);
    expect(rows).toEqual(await expectedRows(shop.accountId, null, incomingIds));
    expect(res.body).not.toContain('rival-secret');
    expect(res.body).not.toContain('payout-');
  });

  it('keeps commas, quotes and line breaks in a reference, and defuses formulas', async () => {
    const rows = parseCsv((await exportCsv('incoming')).body).slice(1);
    const references = new Set(rows.map((row) => row[10]));
    for (const tricky of ['plain', 'with, a comma', 'with "quotes"', 'two\nlines', 'crlf\r\nend']) {
      expect(references.has(tricky), JSON.stringify(tricky)).toBe(true);
    }
    for (const formula of TRICKY_REFERENCES.filter((r) => /^[=+\-@]/.test(r))) {
      expect(references.has(`'${formula}`), formula).toBe(true);
      expect(references.has(formula)).toBe(false);
    }
    // No cell of the file starts as a formula.
    expect(rows.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
  });

  it('gives the payout links’ requests as outgoing, with their link’s token and payer', async () => {
    const res = await exportCsv('outgoing');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="requests-outgoing.csv"');
    const rows = parseCsv(res.body).slice(1);
    expect(rows).toEqual(await expectedRows(shop.accountId, outgoingToken, outgoingIds));
    expect(rows.map((row) => row[9])).toEqual(Array(OUTGOING_ROWS).fill(PAYER));
  });

  it('gives another account only its own rows, and a new account the header alone', async () => {
    const rows = parseCsv((await exportCsv('incoming', rival.headers)).body);
    expect(rows).toHaveLength(2);
    expect(rows[1]?.[10]).toBe('rival-secret');
    const empty = await register();
    expect((await exportCsv('outgoing', empty.headers)).body).toBe(
      `${EXPORT_COLUMNS.join(',')}\r\n`,
    );
  });

  it('reads page by page: small pages give the same file as one read', async () => {
    const whole = await exportCsv('incoming');
    const pages: string[] = [];
    for await (const chunk of exportRequestsCsv(t, shop.accountId, 'incoming', 97))
      pages.push(chunk);
    // The header, then one chunk per page of 97 of the account's requests (both flows).
    expect(pages).toHaveLength(1 + Math.ceil((INCOMING_ROWS + OUTGOING_ROWS) / 97));
    expect(pages.join('')).toBe(whole.body);
  });

  it.each([
    ['no flow', ''],
    ['an unknown flow', 'flow=both'],
  ])('answers 400 for %s', async (_name, query) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2/dashboard/requests/export?${query}`,
      headers: shop.headers,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
  });

  it('takes a session only', async () => {
    expect((await exportCsv('incoming', {})).statusCode).toBe(401);
    expect((await exportCsv('incoming', { authorization: 'Bearer nope' })).statusCode).toBe(401);
    // A valid API key is not a session: the export is the dashboard's.
    const tenant = await createTenant(t.db, 'Keyed');
    const keyed = await exportCsv('incoming', { 'x-api-key': tenant.apiKey });
    expect(keyed.statusCode).toBe(403);
    expect(keyed.json().code).toBe('credential_not_accepted');
  });
});
