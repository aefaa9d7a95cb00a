import { csvRecord } from '../base/csv.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { encodeCursor } from '../db/keyset.ts';
import type { CallerScope } from '../http/principal.ts';
import { paymentBody } from '../payments/records.ts';
import { buildPaymentSearch, excessOfPage, type SearchQuery } from './search.ts';

/**
 * `GET /v2/dashboard/payments/export`: the payments a search of `GET /v2/payments` finds, all of
 * them, as CSV, newest first: written page by page as the database gives them (the search's own
 * keyset pages), so an export of a million payments never sits in memory.
 */

/** Rows read per query: a page is a few hundred kilobytes of CSV at most. */
const PAYMENT_EXPORT_PAGE_ROWS = 500;

export const PAYMENT_EXPORT_COLUMNS = [
  'paymentId',
  'timestamp',
  'type',
  'requestId',
  'reference',
  'amount',
  'currency',
  'paidAmount',
  'paidCurrency',
  'network',
  'txHash',
  'sourceNetwork',
  'sourceTxHash',
  'payer',
  'payee',
  'feeAmount',
  'excessAmount',
] as const;

/** The search's filters: what `GET /v2/payments` takes, paging aside. */
export type ExportFilters = Omit<SearchQuery, 'limit' | 'offset' | 'cursor'>;

/** The CSV, header first; a query without a filter, or a malformed one, throws before it. */
export async function* exportPaymentsCsv(
  db: Database,
  chains: ChainRegistry,
  scope: CallerScope,
  filters: ExportFilters,
  pageRows = PAYMENT_EXPORT_PAGE_ROWS,
): AsyncGenerator<string> {
  let cursor: string | undefined;
  // Built before the header is written: a bad filter is the caller's 400, not a broken file.
  let search = buildPaymentSearch(db, chains, scope, { ...filters, limit: pageRows });
  yield csvRecord(PAYMENT_EXPORT_COLUMNS);
  for (;;) {
    const rows = await search.sql.page;
    const page = rows.slice(0, pageRows);
    const excess = await excessOfPage(db, page);
    yield page
      .map(({ payment, request }) => {
        const body = paymentBody(chains, payment, request, excess.get(payment.id) ?? 0n);
        const crosschain = body.type === 'crosschain';
        return csvRecord([
          body.id,
          body.timestamp,
          body.type,
          body.request.requestId,
          body.request.reference,
          body.amount,
          body.currency,
          body.paidAmount,
          body.paidCurrency,
          body.destinationNetwork,
          crosschain ? body.destinationTxHash : body.sourceTxHash,
          crosschain ? body.sourceNetwork : null,
          crosschain ? body.sourceTxHash : null,
          body.payerAddress,
          payment.payee,
          body.fees[0]?.amount ?? null,
          body.excessAmount,
        ]);
      })
      .join('');
    const last = page.at(-1);
    if (rows.length <= pageRows || last === undefined) return;
    cursor = encodeCursor({ at: last.cursorAt, id: last.payment.id });
    search = buildPaymentSearch(db, chains, scope, { ...filters, limit: pageRows, cursor });
  }
}
