import { and, eq, inArray } from 'drizzle-orm';
import type { NetworkId } from '../chains/networks.ts';
import type { Database } from '../db/client.ts';
import { commercePayments } from '../db/schema.ts';
import type {
  ContractLog,
  DetectedPayment,
  WatchedPayment,
  WatchedSettlement,
} from '../detection/types.ts';
import { concerns } from './concerns.ts';
import { type CommerceLogEvent, decodeCommerceLogs } from './detect-logs.ts';
import { type CommercePaymentRow, same } from './payment.ts';
import type { WrapperOperators } from './wrapper-operator.ts';

/**
 * The payments of commerce payments' requests (detection's `LogWatcher.settles`). The wrapper
 * pays the merchant through ERC20FeeProxy with the payment's reference, its fee taken out of
 * what it captured; but anyone may call the fee proxy with that reference. So a payment to the
 * merchant counts only when its transaction holds the wrapper's `PaymentCaptured` (or
 * `PaymentCharged`) of the payment, by its operator (concerns.ts), for exactly what the leg moved (amount and
 * fee), each such event vouching for one leg; it then counts for what was captured, and its
 * payer is the buyer, not the operator that sent it. Any other payment to the merchant with the
 * reference (a buyer calling the fee proxy, 1 base unit to the merchant and the rest as its
 * "fee") pays nothing.
 */
export async function settledLegs(
  db: Database,
  deps: { readonly network: NetworkId; readonly operators: WrapperOperators },
  payments: readonly WatchedPayment[],
  logs: readonly ContractLog[],
): Promise<(WatchedSettlement | null | undefined)[]> {
  const ids = [...new Set(payments.map((p) => p.requestId))];
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(commercePayments)
    .where(
      and(eq(commercePayments.network, deps.network), inArray(commercePayments.requestId, ids)),
    );
  const byRequest = new Map(rows.map((row) => [row.requestId, row]));
  const events = rows.length > 0 ? decodeCommerceLogs(logs) : [];
  const used = new Set<CommerceLogEvent>();
  const answers: (WatchedSettlement | null | undefined)[] = [];
  for (const { event, requestId } of payments) {
    const payment = byRequest.get(requestId);
    answers.push(payment && (await vouched(event, payment, events, used, deps.operators)));
  }
  return answers;
}

/** The leg as its capture (or charge) says, or null when none in its transaction vouches. */
async function vouched(
  leg: DetectedPayment,
  payment: CommercePaymentRow,
  events: readonly CommerceLogEvent[],
  used: Set<CommerceLogEvent>,
  operators: WrapperOperators,
): Promise<WatchedSettlement | null> {
  const paid = leg.amount + leg.feeAmount;
  const reference = payment.paymentReference.toLowerCase();
  const ofPayment = (event: CommerceLogEvent) =>
    event.paymentReference === reference && same(event.wrapper, payment.wrapper);
  for (const event of events) {
    if (used.has(event) || !ofPayment(event)) continue;
    if (event.type !== 'captured' && event.type !== 'charged') continue;
    if (!same(event.txHash, leg.txHash) || event.amount !== paid) continue;
    if (!(await concerns(event, payment, operators))) continue;
    used.add(event);
    return { requestAmount: paid, payer: await buyerOf(payment, events, operators) };
  }
  return null;
}

/** The buyer: the row's, else that of our authorization (or charge) in the same range. */
async function buyerOf(
  payment: CommercePaymentRow,
  events: readonly CommerceLogEvent[],
  operators: WrapperOperators,
): Promise<string | null> {
  if (payment.payer !== null) return payment.payer;
  for (const event of events) {
    if (event.type !== 'authorized' && event.type !== 'charged') continue;
    if (event.paymentReference !== payment.paymentReference.toLowerCase()) continue;
    if (await concerns(event, payment, operators)) return event.payer;
  }
  return null;
}
