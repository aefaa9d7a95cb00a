import { type FieldError, ValidationError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { payments, requests } from '../db/schema.ts';
import type { CallerScope } from '../http/principal.ts';
import { formatAmount } from '../payments/amounts.ts';
import { buildPaymentSearch } from './search.ts';

/**
 * `GET /v2/transaction-history`: the payments a wallet received (`incoming`: it is the payee) or
 * sent (`outgoing`: it sent the transaction, or it is the connected wallet behind it), among
 * those the caller may see: a client ID's are the payments of the requests made with it, as in
 * `GET /v2/payments`, since a client ID is public and must not read the rest of its account.
 * Newest first, paged by `limit` and `offset` as every list is. Same-chain payments only so
 * far: source and destination are the same chain, currency and transaction.
 */

export const HISTORY_DEFAULT_LIMIT = 20;

type PaymentRow = typeof payments.$inferSelect;
type RequestRow = typeof requests.$inferSelect;

export interface HistoryQuery {
  readonly address: string;
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
}

/** One item, as 0.31.0's 200 schema describes it. */
export interface HistoryItem {
  readonly type: 'incoming' | 'outgoing';
  readonly timestamp: string;
  readonly from?: string;
  readonly to: string;
  readonly amountReceived: string;
  readonly amountPaid: string;
  readonly paymentCurrency: string;
  readonly receivingCurrency: string;
  readonly paymentChain: string;
  readonly receivingChain: string;
  readonly sourceTxHash: string;
  readonly destinationTxHash: string;
}

export async function transactionHistory(
  db: Database,
  chains: ChainRegistry,
  scope: CallerScope,
  query: HistoryQuery,
): Promise<HistoryItem[]> {
  // The zero address moves nothing: it is a valid question with no answer.
  const wallet = parseAddress(query.address, { allowZero: true });
  if (!wallet.ok) {
    const errors: FieldError[] = [{ field: 'address', message: wallet.message }];
    throw new ValidationError(errors);
  }
  const limit = query.limit ?? HISTORY_DEFAULT_LIMIT;
  const { sql: statements } = buildPaymentSearch(db, chains, scope, {
    walletAddress: query.address,
    limit,
    offset: query.offset,
  });
  const rows = await statements.page;
  const key = addressKey(wallet);
  return rows
    .slice(0, limit)
    .map(({ payment, request }) => historyItem(chains, key, payment, request));
}

function historyItem(
  chains: ChainRegistry,
  walletKey: string,
  payment: PaymentRow,
  request: RequestRow,
): HistoryItem {
  const decimals = chains.currency(request.paymentCurrency)?.decimals ?? 0;
  // A wallet that paid itself received the payment as well: it reads as incoming.
  const incoming = payment.payeeKey === walletKey;
  return {
    type: incoming ? 'incoming' : 'outgoing',
    timestamp: payment.timestamp.toISOString(),
    ...(payment.payerAddress !== null && { from: payment.payerAddress }),
    to: payment.payee,
    // The payee gets the amount; the wallet sent it and the fee beside it.
    amountReceived: formatAmount(payment.amount, decimals),
    amountPaid: formatAmount(payment.amount + payment.feeAmount, decimals),
    paymentCurrency: request.paymentCurrency,
    receivingCurrency: request.paymentCurrency,
    paymentChain: payment.network,
    receivingChain: payment.network,
    sourceTxHash: payment.txHash,
    destinationTxHash: payment.txHash,
  };
}
