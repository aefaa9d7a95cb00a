import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { formatAmount } from '../../payments/amounts.ts';
import { paymentsOfRequests } from '../../payments/records.ts';
import { dueDateOf, executionsOf, type RecurringPayoutRow } from './store.ts';
import { payUrlOf, permitBody } from './wire.ts';

/** A recurring payout as its account reads it (by id) and as its payer does (by pay token). */

export function decimalsOf(deps: { chains: ChainRegistry }, row: RecurringPayoutRow): number {
  const currency = deps.chains.currency(row.currency);
  if (!currency) throw new Error(`recurring payout ${row.id}: unknown currency ${row.currency}`);
  return currency.decimals;
}

/** Where a recurring payout stands: what `GET /v2/payouts/recurring` lists of each. */
export function recurringSummary(
  deps: { chains: ChainRegistry; payUrl: string },
  row: RecurringPayoutRow,
) {
  const decimals = decimalsOf(deps, row);
  const scheduled = row.status === 'pending' || row.status === 'active';
  return {
    id: row.id,
    status: row.status,
    processedPayments: row.processedPayments,
    totalPayments: row.totalPayments,
    frequency: row.frequency,
    startDate: row.startDate.toISOString(),
    amount: formatAmount(row.amount, decimals),
    currency: row.currency,
    network: row.network,
    payer: row.payer,
    payee: row.payee,
    lastPaymentDate: row.lastPaymentAt?.toISOString() ?? null,
    nextPaymentDate: scheduled ? dueDateOf(row, row.processedPayments + 1).toISOString() : null,
    failureCount: row.failureCount,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    payUrl: payUrlOf(deps.payUrl, row.payToken),
  };
}

/** `GET /v2/payouts/recurring/{id}`: where it stands, its requests and its payments. */
export async function recurringStatus(
  deps: { db: Database; chains: ChainRegistry; payUrl: string },
  row: RecurringPayoutRow,
) {
  const decimals = decimalsOf(deps, row);
  const executions = await executionsOf(deps.db, row.id);
  const payments = await paymentsOfRequests(
    deps.db,
    executions.map(({ request }) => request.id),
  );
  const { createdAt, payUrl, ...summary } = recurringSummary(deps, row);
  return {
    ...summary,
    requests: executions.map(({ request }) => ({
      paymentReference: `0x${request.paymentReference}`,
      requestId: request.requestId,
    })),
    payments: executions.flatMap(({ request }) =>
      (payments.get(request.id) ?? []).map((payment) => ({
        id: payment.id,
        amount: formatAmount(payment.amount, decimals),
        timestamp: payment.timestamp.toISOString(),
        txHash: payment.txHash,
      })),
    ),
    createdAt,
    payUrl,
  };
}

/** `GET /v2/payouts/recurring/token/{token}`: what the payer's page shows, and the permit to sign. */
export function payerView(deps: { chains: ChainRegistry }, row: RecurringPayoutRow) {
  const decimals = decimalsOf(deps, row);
  const scheduled = row.status === 'pending' || row.status === 'active';
  return {
    id: row.id,
    status: row.status,
    network: row.network,
    chainId: row.chainId,
    currency: row.currency,
    amount: formatAmount(row.amount, decimals),
    feeAmount: formatAmount(row.feeAmount, decimals),
    frequency: row.frequency,
    startDate: row.startDate.toISOString(),
    paymentDates: Array.from({ length: row.totalPayments }, (_, i) =>
      dueDateOf(row, i + 1).toISOString(),
    ),
    totalPayments: row.totalPayments,
    processedPayments: row.processedPayments,
    lastPaymentDate: row.lastPaymentAt?.toISOString() ?? null,
    nextPaymentDate: scheduled ? dueDateOf(row, row.processedPayments + 1).toISOString() : null,
    payer: row.payer,
    payee: row.payee,
    recurringPaymentPermit: permitBody(row),
  };
}
