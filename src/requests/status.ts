import type { ChainRegistry } from '../chains/registry.ts';
import type { FeeLegView } from '../fees/legs.ts';
import { formatAmount } from '../payments/amounts.ts';
import { excessByPayment, type PaymentRow, paymentBody } from '../payments/records.ts';
import { conversionStatus } from './conversion-status.ts';
import type { Series } from './recurring.ts';
import type { RequestRow } from './requests.ts';
import { requestUnits } from './units.ts';

/**
 * A request's status record (`GET /v2/request/{id}` and the list): the reference API's fields,
 * with what its payments say: `txHash` and `payerAddress` of the latest one, every payment in
 * `payments`, their platform fees in `fees` (in the payment currency). Amounts are in the
 * invoice currency; a fiat request adds what its conversions say (`conversionStatus`).
 * Recurrence fields: `recurrence` on the original of a series, `originalRequestId` and
 * `originalRequestPaymentReference` on its occurrences, absent where they have no value (the
 * reference types them as non-nullable), and `isRecurrenceStopped` of the series.
 */
export function requestStatusBody(
  chains: ChainRegistry,
  row: RequestRow,
  payments: readonly PaymentRow[],
  series: Series | null = null,
  feeLegs: readonly FeeLegView[] = [],
) {
  const units = requestUnits(chains, row);
  const { decimals } = units;
  const paymentDecimals = units.payment?.decimals ?? 0;
  const paid = row.totalAmountPaid;
  const latest = payments.at(-1) ?? null;
  const feeTotal = payments.reduce((sum, payment) => sum + payment.feeAmount, 0n);
  const excess = excessByPayment(payments, row.expectedAmount);
  return {
    requestId: row.requestId,
    paymentReference: `0x${row.paymentReference}`,
    // A crypto-to-fiat request is paid once fiat is delivered, not while it is on its way.
    hasBeenPaid: displayedStatus(row) === 'paid',
    isListening: displayedStatus(row) !== 'paid',
    status: displayedStatus(row),
    txHash: latest?.txHash ?? null,
    payee: row.payee,
    payer: row.payer,
    network: row.network,
    invoiceCurrency: row.invoiceCurrency,
    paymentCurrency: row.paymentCurrency,
    requestAmount: formatAmount(row.expectedAmount, decimals),
    expectedAmount: formatAmount(row.expectedAmount, decimals),
    totalAmountPaid: formatAmount(paid, decimals),
    excessAmount:
      paid > row.expectedAmount ? formatAmount(paid - row.expectedAmount, decimals) : null,
    payerAddress: latest?.payerAddress ?? null,
    payerEoaAddress: latest?.payerEoaAddress ?? null,
    reference: row.reference,
    customerInfo: row.customerInfo,
    payments: payments.map((payment) =>
      paymentBody(chains, payment, row, excess.get(payment.id) ?? 0n),
    ),
    isCryptoToFiatAvailable: row.cryptoToFiat,
    ...(row.cryptoToFiat && { offrampStatus: row.offrampStatus }),
    ...(series !== null &&
      series.originalRequestId === row.requestId && { recurrence: series.recurrence }),
    ...(row.originalRequestId !== null && {
      originalRequestId: row.originalRequestId,
      originalRequestPaymentReference: `0x${row.originalRequestPaymentReference}`,
    }),
    isRecurrenceStopped: series?.stopped ?? false,
    ...(units.converts
      ? conversionStatus(row, payments, units)
      : { amountInUsd: null, conversionRate: null, conversionBreakdown: null }),
    fees: [
      ...(feeTotal === 0n
        ? []
        : [
            {
              type: 'platform' as const,
              provider: 'request-network',
              amount: formatAmount(feeTotal, paymentDecimals),
              currency: row.paymentCurrency,
            },
          ]),
      // The fee legs of its link's fee plan, paid or not (the payee's leg is short of the
      // payee-borne ones): what each is, who bore it, and whether it is still owed.
      // `type` stays `platform` for both kinds: 0.13.0's enum has no `protocol`, and clients
      // still on it read this answer; `feeType` says which it is.
      ...feeLegs.map((leg) => ({
        type: 'platform' as const,
        provider: 'request-network',
        amount: leg.amount,
        currency: leg.currency,
        feeType: leg.type,
        feeBearer: leg.feeBearer,
        recipient: leg.recipient,
        paymentReference: leg.paymentReference,
        status: leg.status,
        txHash: leg.txHash,
      })),
    ],
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * A crypto-to-fiat request shows `processing` while its off-ramp transfer is under way (paid on
 * chain, fiat not yet sent) and `failed` when the transfer failed or bounced (its deposit no
 * longer counted: the request is payable again); `paid` once fiat is sent. `hasBeenPaid` follows
 * `status`: true only once `paid`.
 */
function displayedStatus(row: RequestRow): string {
  const offramp = row.offrampStatus;
  if (!row.cryptoToFiat || offramp === null || offramp === 'fiat_sent') return row.status;
  return offramp === 'failed' || offramp === 'bounced' ? 'failed' : 'processing';
}
