import { eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { encodeCursor, type KeysetPosition } from '../../src/db/keyset.ts';
import { missingReferenceTopics } from '../../src/db/migrate.ts';
import { clientIds } from '../../src/db/schema.ts';
import type { CallerScope } from '../../src/http/principal.ts';
import { buildPaymentSearch, type SearchQuery } from '../../src/payments-search/search.ts';
import { EXPORT_PAGE_ROWS, exportPageQuery } from '../../src/requests/export.ts';
import { originalCandidates } from '../../src/requests/original.ts';
import { requestListQuery } from '../../src/requests/requests.ts';
import { linkListQuery } from '../../src/secure-payments/list.ts';
import { referenceLookup } from '../../src/v1/lookup.ts';
import { deliveryPageQuery } from '../../src/webhooks/deliveries.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { createTenant } from '../fixtures.ts';
import {
  BASE_TIME,
  EOA,
  listOwnerWebhook,
  loadListRows,
  PAYEES,
  PAYERS,
  rowFacts,
} from '../list-rows.ts';

/**
 * The plans of every list and filter over 100,000 rows a table: each statement the routes run
 * (built by the same functions) must reach the large tables through an index, in the list's
 * order. A sequential scan of a large table, or a sort of thousands of rows (an index that
 * finds the rows but not in order), fails with the plan printed. Postgres only: PGlite's
 * planner is the same code, but these sizes are the point, and they are a server's.
 */

const ROWS = 100_000;
const LARGE = new Set(['payments', 'requests', 'secure_payments', 'webhook_deliveries']);
/** A sort of more rows than this means the rows were not read in the list's order. */
const MAX_SORTED_ROWS = 1_000;

const source = inject('testDatabase');

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Plan Rows': number;
  readonly Plans?: readonly PlanNode[];
}

describe.runIf(source.kind === 'postgres')('list plans at 100,000 rows', () => {
  let t: TestApp;
  let scope: CallerScope;
  let clientScope: CallerScope;
  let webhookId: string;

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await createTenant(t.db, 'Large lister');
    const [client] = await t.db
      .select({ id: clientIds.id })
      .from(clientIds)
      .where(eq(clientIds.clientId, tenant.backendClientId));
    const clientIdRowId = client?.id ?? '';
    webhookId = await listOwnerWebhook(t.db, tenant.accountId);
    await loadListRows(t.db, { accountId: tenant.accountId, clientIdRowId, webhookId }, 1, ROWS);
    scope = { accountId: tenant.accountId, clientIdId: null };
    clientScope = { accountId: tenant.accountId, clientIdId: clientIdRowId };
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Deep in the list: the position of row 100 (the cursor a page near the end carries). */
  const deep = (seconds: number): KeysetPosition => ({
    at: new Date(BASE_TIME.getTime() + seconds * 1000).toISOString().replace('Z', '000Z'),
    id: '00000000-0000-4000-8000-000000000000',
  });

  async function problems(statement: SQLWrapper): Promise<string[]> {
    const [row] = await queryRows<{ 'QUERY PLAN': readonly { Plan: PlanNode }[] }>(
      t.db,
      sql`explain (format json) ${statement}`,
    );
    const found: string[] = [];
    const walk = (node: PlanNode) => {
      const relation = node['Relation Name'];
      if (node['Node Type'] === 'Seq Scan' && relation !== undefined && LARGE.has(relation)) {
        found.push(`sequential scan of ${relation}`);
      }
      if (node['Node Type'] === 'Sort' && node['Plan Rows'] > MAX_SORTED_ROWS) {
        found.push(`sort of ~${node['Plan Rows']} rows`);
      }
      for (const child of node.Plans ?? []) walk(child);
    };
    const plan = row?.['QUERY PLAN'][0]?.Plan;
    if (!plan) return ['no plan'];
    walk(plan);
    if (found.length > 0) found.push(JSON.stringify(plan, null, 1));
    return found;
  }

  const facts = rowFacts(54_321);
  const searches: [string, SearchQuery][] = [
    ['txHash', { txHash: facts.txHash }],
    ['walletAddress (payee)', { walletAddress: PAYEES[1] ?? '' }],
    ['walletAddress (sender, lower case)', { walletAddress: (PAYERS[3] ?? '').toLowerCase() }],
    ['walletAddress (connected wallet)', { walletAddress: EOA }],
    ['paymentReference', { paymentReference: `0x${facts.paymentReference}` }],
    ['requestId', { requestId: facts.requestId }],
    ['reference', { reference: facts.reference }],
    ['type direct', { type: 'direct' }],
    ['type conversion', { type: 'conversion' }],
    ['type crosschain', { type: 'crosschain' }],
    ['invoiceCurrency', { invoiceCurrency: 'DAI-base' }],
    ['paymentCurrency', { paymentCurrency: 'usdc-base' }],
    ['invoiceCurrency by symbol', { invoiceCurrency: 'USDC' }],
    ['fromDate', { fromDate: '2025-01-01T10:00:00Z' }],
    ['fromDate and toDate', { fromDate: '2025-01-01T10:00:00Z', toDate: '2025-01-01T20:00:00Z' }],
    [
      'walletAddress and paymentCurrency',
      { walletAddress: PAYEES[0] ?? '', paymentCurrency: 'DAI-base' },
    ],
    [
      'walletAddress and toDate',
      { walletAddress: PAYERS[0] ?? '', toDate: '2025-01-01T10:00:00Z' },
    ],
    ['largest offset', { type: 'direct', offset: 10_000 }],
  ];

  for (const [name, query] of searches) {
    for (const [page, extra] of [
      ['first page', {}],
      ['a deep page', { cursor: encodeCursor(deep(100)) }],
    ] as const) {
      if (page === 'a deep page' && query.offset !== undefined) continue;
      // Each filter with the client ID's scope; combinations of filters with the account's
      // (a client ID and two filters leave the planner to guess at three correlated columns:
      // it may pick one's index and sort within its matches, see docs/architecture.md).
      const combined = Object.keys(query).filter((key) => key !== 'offset').length > 1;
      for (const [who, of] of [
        ['API key', () => scope],
        ...(combined ? [] : [['client ID', () => clientScope] as const]),
      ] as const) {
        it(`GET /v2/payments ${name}, ${page}, ${who}: page and count use indexes`, async () => {
          const built = buildPaymentSearch(t.db, t.chains, of(), { ...query, ...extra });
          expect(await problems(built.sql.page)).toEqual([]);
          expect(await problems(built.sql.cappedCount)).toEqual([]);
        });
      }
    }
  }

  const pages: [string, KeysetPosition | undefined][] = [
    ['first page', undefined],
    ['a deep page', deep(100)],
  ];
  for (const [page, after] of pages) {
    it(`GET /v2/request, ${page}: account, payee wallet, client ID, flow`, async () => {
      const payeeKey = (PAYEES[2] ?? '').toLowerCase();
      for (const statement of [
        requestListQuery(t.db, scope, { limit: 21, offset: 0, after }),
        requestListQuery(t.db, scope, { payeeKey, limit: 21, offset: 0, after }),
        requestListQuery(t.db, clientScope, { limit: 21, offset: 0, after }),
        requestListQuery(t.db, clientScope, { payeeKey, limit: 21, offset: 0, after }),
        requestListQuery(t.db, scope, { flow: 'incoming', limit: 21, offset: 0, after }),
        requestListQuery(t.db, scope, { flow: 'outgoing', limit: 21, offset: 0, after }),
        requestListQuery(t.db, scope, { payeeKey, flow: 'outgoing', limit: 21, offset: 0, after }),
      ]) {
        expect(await problems(statement)).toEqual([]);
      }
    });

    it(`GET /v2/dashboard/requests/export, ${page}: the account's requests and their links`, async () => {
      const statement = exportPageQuery(t.db, scope.accountId, EXPORT_PAGE_ROWS, after);
      expect(await problems(statement)).toEqual([]);
    });

    it(`GET /v2/secure-payments list, ${page}: all, payouts, incoming, created range`, async () => {
      const base = { limit: 21, after };
      for (const filter of [
        base,
        { ...base, payout: true },
        { ...base, payout: false },
        { ...base, createdFrom: new Date('2025-01-01T10:00:00Z') },
        { ...base, payout: true, createdTo: new Date('2025-01-01T20:00:00Z') },
      ]) {
        expect(await problems(linkListQuery(t.db, scope.accountId, filter))).toEqual([]);
      }
    });
  }

  it('GET /v1/webhook/:id/deliveries, first and a deep page', async () => {
    expect(await problems(deliveryPageQuery(t.db, webhookId, undefined, 20))).toEqual([]);
    const before = `01${'100'.padStart(24, '0')}`;
    expect(await problems(deliveryPageQuery(t.db, webhookId, before, 20))).toEqual([]);
  });

  it('POST /v2/request naming its original: by id, by payment reference, by both', async () => {
    const reference = 'aaaaaaaaaaaaaaaa';
    const id = `01${'b'.repeat(64)}`;
    for (const name of [{ id }, { reference }, { id, reference }]) {
      expect(await problems(originalCandidates(t.db, scope.accountId, name))).toEqual([]);
    }
  });

  it('the v1 operations: a request by its payment reference', async () => {
    expect(await problems(referenceLookup(t.db, scope.accountId, 'aaaaaaaaaaaaaaaa'))).toEqual([]);
  });

  it('the start-up backfill of reference topics reads its empty index, not the requests', async () => {
    const query = missingReferenceTopics(t.db);
    expect(await problems(query)).toEqual([]);
    // Not a full scan of another index either: the partial one holds only rows to backfill.
    const [row] = await queryRows<{ 'QUERY PLAN': readonly { Plan: { 'Index Name'?: string } }[] }>(
      t.db,
      sql`explain (format json) ${query}`,
    );
    expect(row?.['QUERY PLAN'][0]?.Plan['Index Name']).toBe(
      'requests_missing_reference_topic_index',
    );
  });

  it('the EXPLAIN check itself fails on a sequential scan and on a large sort', async () => {
    const scan: SQL = sql`select * from payments where amount = 5`;
    expect((await problems(scan))[0]).toBe('sequential scan of payments');
    const sorted: SQL = sql`select * from requests where payee = ${PAYEES[0]} order by expected_amount limit 5`;
    expect(await problems(sorted)).toContain('sequential scan of requests');
  });
});
