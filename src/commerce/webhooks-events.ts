import { and, eq, inArray, sql } from 'drizzle-orm';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { type CommerceEventType, commerceEvents, webhookDeliveries } from '../db/schema.ts';
import { formatAmount } from '../payments/amounts.ts';
import { REORGED } from '../requests/payment-events.ts';
import { listeners, writeDeliveries } from '../webhooks/outbox.ts';
import type { CommercePaymentRow } from './payment.ts';

/**
 * The commerce payments' webhooks: `commerce_payment.<type>` for every wrapper event detection
 * records, written into the outbox in the transaction that records it, to the endpoints that
 * hear of the payment's account (and of its client ID). A reorganisation that drops the event
 * cancels what was not sent yet, as it does for payments, and tells the endpoints that may
 * have heard of it with the same event, `reverted: true`: the transition is taken back.
 */

type CommerceEventRow = typeof commerceEvents.$inferSelect;

/** What the payment's events add up to, in base units (a charge counts as both). */
interface CommerceTotals {
  readonly authorized: bigint;
  readonly captured: bigint;
  readonly refunded: bigint;
}

/**
 * The totals of a payment's events now recorded up to `event`'s place on the chain (its block,
 * then its log), the event counted if it is still recorded: webhooks may arrive out of order,
 * so each carries the totals as of its own event, and a receiver orders them by
 * (`blockNumber`, `logIndex`).
 */
async function commerceTotals(tx: Database, event: CommerceEventRow): Promise<CommerceTotals> {
  const rows = await tx
    .select({
      type: commerceEvents.type,
      total: sql<string>`coalesce(sum(${commerceEvents.amount}), 0)::text`,
    })
    .from(commerceEvents)
    .where(
      and(
        eq(commerceEvents.commercePaymentId, event.commercePaymentId),
        sql`(${commerceEvents.blockNumber}, ${commerceEvents.logIndex}) <= (${String(event.blockNumber)}::bigint, ${event.logIndex}::integer)`,
      ),
    )
    .groupBy(commerceEvents.type);
  const of = (type: CommerceEventType) =>
    BigInt(rows.find((row) => row.type === type)?.total ?? '0');
  return {
    authorized: of('authorized') + of('charged'),
    captured: of('captured') + of('charged'),
    refunded: of('refunded'),
  };
}

/** The body of `commerce_payment.<type>`, `event` aside. */
function commerceEventPayload(
  chains: ChainRegistry,
  input: {
    readonly payment: CommercePaymentRow;
    readonly event: CommerceEventRow;
    readonly totals: CommerceTotals;
    readonly reverted: boolean;
    readonly clientId: string | null;
    readonly recordedAt: Date;
  },
): Record<string, unknown> {
  const { payment, event, totals } = input;
  const network = payment.network;
  const currency =
    chains.currency(payment.currency) ?? chains.currencyByToken(network, payment.tokenAddress);
  // A currency no longer served still has its amounts reported, in base units.
  const decimals = currency?.decimals ?? 0;
  return {
    requestId: payment.requestId,
    requestID: payment.requestId,
    paymentReference: `0x${payment.paymentReference}`,
    network: payment.network,
    currency: currency?.symbol ?? payment.currency,
    paymentCurrency: payment.currency,
    amount: formatAmount(event.amount, decimals),
    authorizedAmount: formatAmount(totals.authorized, decimals),
    capturedAmount: formatAmount(totals.captured, decimals),
    refundedAmount: formatAmount(totals.refunded, decimals),
    merchant: payment.merchant,
    payer: payment.payer,
    commercePaymentHash: payment.commercePaymentHash,
    txHash: event.txHash,
    blockNumber: String(event.blockNumber),
    logIndex: event.logIndex,
    blockTimestamp: event.blockTime.toISOString(),
    explorer: chains.explorerTxUrl(network, event.txHash),
    reverted: input.reverted,
    timestamp: input.recordedAt.toISOString(),
    ...(input.clientId !== null && { clientId: input.clientId, origin: payment.origin }),
  };
}

/** Writes the webhook of a wrapper event just recorded; returns how many deliveries. */
export async function enqueueCommerceEvent(
  tx: Database,
  deps: { readonly chains: ChainRegistry; readonly now: Date },
  payment: CommercePaymentRow,
  event: CommerceEventRow,
): Promise<number> {
  const { webhookIds, clientId } = await listeners(tx, {
    accountId: payment.accountId,
    clientIdId: payment.clientIdId,
  });
  if (webhookIds.length === 0) return 0;
  const totals = await commerceTotals(tx, event);
  const payload = commerceEventPayload(deps.chains, {
    payment,
    event,
    totals,
    reverted: false,
    clientId,
    recordedAt: deps.now,
  });
  const written = await writeDeliveries(
    tx,
    deps.now,
    webhookIds,
    [{ event: `commerce_payment.${event.type}`, payload }],
    // The delivery names the event row: a reorganisation that drops it finds what to cancel.
    { paymentId: event.id },
  );
  return written.length;
}

/**
 * Takes back events a reorganisation dropped (their rows already deleted): what was not sent
 * yet is cancelled; an endpoint that may have heard of one (a delivery attempted, or made)
 * gets the same event with `reverted: true` and the totals left.
 */
export async function revertCommerceEvents(
  tx: Database,
  deps: { readonly chains: ChainRegistry; readonly now: Date },
  dropped: readonly { readonly payment: CommercePaymentRow; readonly event: CommerceEventRow }[],
): Promise<number> {
  if (dropped.length === 0) return 0;
  const ids = dropped.map(({ event }) => event.id);
  const sent = await tx
    .select({
      paymentId: webhookDeliveries.paymentId,
      webhookId: webhookDeliveries.webhookId,
      attempts: webhookDeliveries.attempts,
    })
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.paymentId, ids));
  await tx
    .update(webhookDeliveries)
    .set({ status: 'failed', lockedUntil: null, lastError: REORGED })
    .where(and(inArray(webhookDeliveries.paymentId, ids), eq(webhookDeliveries.status, 'pending')));
  let written = 0;
  for (const { payment, event } of dropped) {
    const heard = new Set(
      sent
        // An attempt made (delivered, refused or in flight) may have been heard.
        .filter((row) => row.paymentId === event.id && row.attempts > 0)
        .map((row) => row.webhookId),
    );
    if (heard.size === 0) continue;
    const { webhookIds, clientId } = await listeners(tx, {
      accountId: payment.accountId,
      clientIdId: payment.clientIdId,
    });
    const targets = webhookIds.filter((id) => heard.has(id));
    if (targets.length === 0) continue;
    const payload = commerceEventPayload(deps.chains, {
      payment,
      event,
      totals: await commerceTotals(tx, event),
      reverted: true,
      clientId,
      recordedAt: deps.now,
    });
    written += (
      await writeDeliveries(tx, deps.now, targets, [
        { event: `commerce_payment.${event.type}`, payload },
      ])
    ).length;
  }
  return written;
}
