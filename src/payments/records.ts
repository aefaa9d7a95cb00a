import { asc, inArray } from 'drizzle-orm';
import { Type } from 'typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { payments, type requests } from '../db/schema.ts';
import { conversionRate, formatAmount, formatUsd } from './amounts.ts';

/**
 * A recorded payment as the API shows it, the same wherever it appears: in `GET /v2/payments`
 * and in a request's `payments`. A same-chain payment leaves and arrives on one network in one
 * transaction (`sourceTxHash`); a cross-chain one left the payer on `sourceNetwork` in its
 * bridge deposit (`sourceTxHash`, null while unknown) and arrived in the bridge's fill
 * (`destinationTxHash`).
 */

export type PaymentRow = typeof payments.$inferSelect;
type RequestRow = typeof requests.$inferSelect;

/** What a payment copies from its request for the search to filter on (see the schema). */
export function searchColumnsOf(
  request: Pick<RequestRow, 'clientIdId' | 'invoiceCurrency' | 'paymentCurrency'>,
) {
  return {
    clientIdId: request.clientIdId,
    conversion: request.invoiceCurrency !== request.paymentCurrency,
    invoiceCurrencyKey: request.invoiceCurrency.toLowerCase(),
    paymentCurrencyKey: request.paymentCurrency.toLowerCase(),
  };
}

export const PAYMENT_SCHEMA_ID = 'Payment';

const Fee = Type.Object(
  {
    type: Type.Union([Type.Literal('platform'), Type.Literal('protocol')], {
      description: 'Ours are platform fees; the reference also reports protocol fees',
    }),
    stage: Type.Literal('sending'),
    amount: Type.Union([Type.String(), Type.Null()], {
      description: 'Human-readable, in the payment currency',
    }),
    currency: Type.String({ description: 'Symbol of the payment currency' }),
    receiverAddress: Type.Optional(Type.String()),
    network: Type.String(),
  },
  { additionalProperties: false },
);

export const PaymentSchema = Type.Object(
  {
    id: Type.String(),
    amount: Type.String({
      description:
        'Human-readable, fee excluded, in what the request counts in: the invoice currency (the payment currency unless the payment converted)',
    }),
    sourceNetwork: Type.String(),
    destinationNetwork: Type.String(),
    sourceTxHash: Type.Union([Type.String(), Type.Null()], {
      description:
        'The payer’s transaction: same-chain, the payment; cross-chain, the bridge deposit on sourceNetwork (null while not known)',
    }),
    destinationTxHash: Type.Union([Type.String(), Type.Null()], {
      description:
        'A cross-chain payment’s arrival (the bridge’s fill that paid); null: same-chain, one transaction',
    }),
    timestamp: Type.String({ format: 'date-time', description: "The block's time" }),
    type: Type.Union([
      Type.Literal('direct'),
      Type.Literal('conversion'),
      Type.Literal('crosschain'),
    ]),
    currency: Type.String({ description: 'Symbol of the invoice currency' }),
    paymentCurrency: Type.String({ description: 'Id of the payment currency' }),
    conversionRateSource: Type.Union([Type.String(), Type.Null()], {
      description: 'Conversion: payment currency per unit of invoice currency',
    }),
    conversionRateDestination: Type.Null({ description: 'Cross-chain conversions only' }),
    convertedAmountSource: Type.Union([Type.String(), Type.Null()], {
      description: 'Conversion: what the payee got, in the payment currency',
    }),
    convertedAmountDestination: Type.Null({ description: 'Cross-chain conversions only' }),
    paidAmount: Type.String({
      description: 'What left the payer’s wallet, fee included, in the payment currency',
    }),
    paidCurrency: Type.String({ description: 'Symbol of the payment currency' }),
    paidNetwork: Type.String(),
    receivedAmount: Type.String({
      description: 'What the payee got, fee excluded, in the payment currency',
    }),
    receivedCurrency: Type.String({ description: 'Symbol of the payment currency' }),
    receivedNetwork: Type.String(),
    excessAmount: Type.Union([Type.String(), Type.Null()], {
      description:
        'What this payment paid beyond what was still due, in the invoice currency; null when nothing',
    }),
    excessCurrency: Type.Union([Type.String(), Type.Null()], {
      description: 'Symbol of the invoice currency, beside an excess',
    }),
    rateProvider: Type.Optional(Type.Literal('chainlink')),
    amountInUsd: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'Ours, on conversion payments: the amount in USD at its block',
      }),
    ),
    fees: Type.Array(Fee),
    request: Type.Object(
      {
        requestId: Type.String(),
        paymentReference: Type.String(),
        hasBeenPaid: Type.Boolean(),
        customerInfo: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
        reference: Type.Union([Type.String(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
    payerAddress: Type.Union([Type.String(), Type.Null()]),
    payerEoaAddress: Type.Union([Type.String(), Type.Null()]),
    detectionSource: Type.Union([Type.Literal('request-network'), Type.Literal('lifi')], {
      description:
        'lifi: settled on the routing aggregator’s report that the bridge delivered it, not seen on chain',
    }),
    note: Type.Union([Type.String(), Type.Null()], {
      description: 'Why a payment was settled another way than seen on chain',
    }),
  },
  { $id: PAYMENT_SCHEMA_ID, additionalProperties: false },
);

/**
 * `excess`: what this payment counted beyond what its request still owed before it, in the
 * invoice currency (`excessByPayment`).
 */
export function paymentBody(
  chains: ChainRegistry,
  payment: PaymentRow,
  request: RequestRow,
  excess: bigint,
) {
  const paymentCurrency = chains.currency(request.paymentCurrency);
  const decimals = paymentCurrency?.decimals ?? 0;
  const paymentSymbol = paymentCurrency?.symbol ?? request.paymentCurrency;
  const invoice = chains.currency(request.invoiceCurrency);
  const invoiceDecimals = invoice?.decimals ?? decimals;
  const invoiceSymbol = invoice?.symbol ?? request.invoiceCurrency;
  const converts = request.invoiceCurrency !== request.paymentCurrency;
  const counted = countedAmount(payment);
  const crosschain = payment.sourceNetwork !== null;
  return {
    id: payment.id,
    amount: formatAmount(counted, invoiceDecimals),
    sourceNetwork: payment.sourceNetwork ?? payment.network,
    destinationNetwork: payment.network,
    sourceTxHash: crosschain ? payment.sourceTxHash : payment.txHash,
    destinationTxHash: crosschain ? payment.txHash : null,
    timestamp: payment.timestamp.toISOString(),
    type: crosschain
      ? ('crosschain' as const)
      : converts
        ? ('conversion' as const)
        : ('direct' as const),
    currency: invoiceSymbol,
    paymentCurrency: request.paymentCurrency,
    conversionRateSource: converts
      ? conversionRate(
          { amount: payment.amount, decimals },
          { amount: counted, decimals: invoice?.decimals ?? 0 },
        )
      : null,
    conversionRateDestination: null,
    convertedAmountSource: converts ? formatAmount(payment.amount, decimals) : null,
    convertedAmountDestination: null,
    ...(converts && {
      rateProvider: 'chainlink' as const,
      amountInUsd: payment.amountInUsd === null ? null : formatUsd(payment.amountInUsd),
    }),
    paidAmount: formatAmount(payment.amount + payment.feeAmount, decimals),
    paidCurrency: paymentSymbol,
    paidNetwork: payment.network,
    receivedAmount: formatAmount(payment.amount, decimals),
    receivedCurrency: paymentSymbol,
    receivedNetwork: payment.network,
    excessAmount: excess > 0n ? formatAmount(excess, invoiceDecimals) : null,
    excessCurrency: excess > 0n ? invoiceSymbol : null,
    fees:
      payment.feeAmount === 0n
        ? []
        : [
            {
              type: 'platform' as const,
              stage: 'sending' as const,
              amount: formatAmount(payment.feeAmount, decimals),
              currency: paymentSymbol,
              ...(payment.feeAddress !== null && { receiverAddress: payment.feeAddress }),
              network: payment.network,
            },
          ],
    request: {
      requestId: request.requestId,
      paymentReference: `0x${request.paymentReference}`,
      hasBeenPaid: request.status === 'paid',
      customerInfo: request.customerInfo,
      reference: request.reference,
    },
    payerAddress: payment.payerAddress,
    payerEoaAddress: payment.payerEoaAddress,
    detectionSource:
      payment.detectionSource === 'lifi' ? ('lifi' as const) : ('request-network' as const),
    note: payment.note,
  };
}

/**
 * What each payment of one request counted beyond what the request still owed before it, in
 * the invoice currency, by payment id: the payment that crosses the expected amount carries
 * the part past it, every later one all it counted. `payments`: all of the request's, oldest
 * first.
 */
export function excessByPayment(
  payments: readonly PaymentRow[],
  expectedAmount: bigint,
): Map<string, bigint> {
  const excess = new Map<string, bigint>();
  let before = 0n;
  for (const payment of payments) {
    const after = before + countedAmount(payment);
    const over = (total: bigint) => (total > expectedAmount ? total - expectedAmount : 0n);
    excess.set(payment.id, over(after) - over(before));
    before = after;
  }
  return excess;
}

export type PaymentBody = ReturnType<typeof paymentBody>;

/** What a payment counted for, in its request's invoice currency (rows before 0013: `amount`). */
export function countedAmount(payment: PaymentRow): bigint {
  return payment.requestAmount ?? payment.amount;
}

/** The payments of some requests, oldest first, grouped by request row id. */
export async function paymentsOfRequests(
  db: Database,
  requestRowIds: readonly string[],
): Promise<Map<string, PaymentRow[]>> {
  const byRequest = new Map<string, PaymentRow[]>();
  if (requestRowIds.length === 0) return byRequest;
  const rows = await db
    .select()
    .from(payments)
    .where(inArray(payments.requestRowId, [...new Set(requestRowIds)]))
    .orderBy(asc(payments.blockNumber), asc(payments.logIndex));
  for (const row of rows) {
    const list = byRequest.get(row.requestRowId) ?? [];
    list.push(row);
    byRequest.set(row.requestRowId, list);
  }
  return byRequest;
}
