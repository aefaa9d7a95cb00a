import { and, desc, eq, sql } from 'drizzle-orm';
import { csvRecord } from '../base/csv.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { type KeysetPosition, keysetAt, olderThan } from '../db/keyset.ts';
import { requests, securePayments } from '../db/schema.ts';
import { formatAmount } from '../payments/amounts.ts';
import { flowOf, linkIsPayout, type RequestFlow } from './flows.ts';

/**
 * `GET /v2/dashboard/requests/export`: the account's requests as CSV, newest first, written page
 * by page as the database gives them (keyset pages on the account's (created, id) index), so an
 * account of a million requests never sits in memory. One flow at a time (`flows.ts`).
 */

/** Rows read per query: a page is a few hundred kilobytes of CSV at most. */
export const EXPORT_PAGE_ROWS = 500;

export const EXPORT_COLUMNS = [
  'requestId',
  'paymentReference',
  'createdAt',
  'status',
  'amount',
  'invoiceCurrency',
  'paymentCurrency',
  'network',
  'payee',
  'payer',
  'reference',
  'amountPaid',
  'paidAt',
  'securePaymentToken',
] as const;

interface ExportDeps {
  readonly db: Database;
  readonly chains: ChainRegistry;
}

/** The CSV, header first, then what each page of rows gives (pages of the other flow give nothing). */
export async function* exportRequestsCsv(
  deps: ExportDeps,
  accountId: string,
  flow: RequestFlow,
  pageRows = EXPORT_PAGE_ROWS,
): AsyncGenerator<string> {
  yield csvRecord(EXPORT_COLUMNS);
  let after: KeysetPosition | undefined;
  for (;;) {
    const rows = await exportPageQuery(deps.db, accountId, pageRows, after);
    const wanted = rows.filter((row) => flowOf(row.payout) === flow);
    if (wanted.length > 0) {
      yield wanted.map((row) => csvRecord(exportRow(deps.chains, row))).join('');
    }
    const last = rows.at(-1);
    if (rows.length < pageRows || last === undefined) return;
    after = { at: last.cursorAt, id: last.request.id };
  }
}

/**
 * One page of the account's requests, newest first, after `after`, each with its link's token
 * and whether it is a payout link (the plan test EXPLAINs it). The flow is told apart here, not
 * in SQL: a condition on the link lets the planner join both tables whole (hash) before the
 * first row, while this reads the account's (created, id) index and stops at the page, looking
 * each link up by its key. An export of one flow reads the other's rows too, and skips them.
 */
export function exportPageQuery(
  db: Database,
  accountId: string,
  limit: number,
  after: KeysetPosition | undefined,
) {
  return db
    .select({
      request: requests,
      token: sql<
        string | null
      >`(select ${securePayments.token} from ${securePayments} where ${securePayments.id} = ${requests.securePaymentId})`,
      payout: linkIsPayout,
      cursorAt: keysetAt(requests.createdAt),
    })
    .from(requests)
    .where(
      and(
        eq(requests.accountId, accountId),
        after === undefined ? undefined : olderThan(requests.createdAt, requests.id, after),
      ),
    )
    .orderBy(desc(requests.createdAt), desc(requests.id))
    .limit(limit);
}

type ExportRow = Awaited<ReturnType<typeof exportPageQuery>>[number];

function exportRow(chains: ChainRegistry, { request, token }: ExportRow): (string | null)[] {
  const decimals = chains.currency(request.invoiceCurrency)?.decimals ?? 0;
  return [
    request.requestId,
    `0x${request.paymentReference}`,
    request.createdAt.toISOString(),
    request.status,
    formatAmount(request.expectedAmount, decimals),
    request.invoiceCurrency,
    request.paymentCurrency,
    request.network,
    request.payee,
    request.payer,
    request.reference,
    formatAmount(request.totalAmountPaid, decimals),
    request.paidAt?.toISOString() ?? null,
    token,
  ];
}
