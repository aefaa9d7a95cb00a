import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { ChainClients } from '../chains/clients.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { commerceActions, commerceEvents, commercePayments, requests } from '../db/schema.ts';
import type { LogWatcher } from '../detection/types.ts';
import { concerns } from './concerns.ts';
import { settledLegs } from './detect-legs.ts';
import { type CommerceLogEvent, decodeCommerceLogs } from './detect-logs.ts';
import type { CommercePaymentRow } from './payment.ts';
import { enqueueCommerceEvent, revertCommerceEvents } from './webhooks-events.ts';
import { createWrapperOperators, type WrapperOperators } from './wrapper-operator.ts';

/**
 * Detection of commerce payments (contracts.md §5): the wrapper's logs, read by the network's
 * indexer in the same pass as the payments' (src/detection/types.ts `LogWatcher`), become
 * `commerce_events` rows of the payment of that (network, reference), each with its webhook, in
 * the transaction that moves the checkpoint. Logs of references we did not create are ignored.
 * The merchant's leg of a capture is a fee-proxy payment to the merchant, which the request of
 * the same reference records as any payment; the legs back to the payer pay no request.
 */
export function createCommerceWatcher(deps: {
  readonly chains: ChainRegistry;
  readonly network: NetworkId;
  /** The network's ERC20CommerceEscrowWrapper. */
  readonly wrapper: string;
  readonly operators: WrapperOperators;
}): LogWatcher {
  const { network } = deps;
  return {
    addresses: [deps.wrapper],
    settles: (db, payments, logs) =>
      settledLegs(db, { network, operators: deps.operators }, payments, logs),
    async recorded(tx, logs, now) {
      const events = decodeCommerceLogs(logs);
      if (events.length === 0) return 0;
      const rows = await tx
        .select()
        .from(commercePayments)
        .where(
          and(
            eq(commercePayments.network, network),
            inArray(commercePayments.paymentReference, [
              ...new Set(events.map((e) => e.paymentReference)),
            ]),
          ),
        );
      const byReference = new Map(rows.map((row) => [row.paymentReference.toLowerCase(), row]));
      let recorded = 0;
      for (const event of events) {
        const payment = byReference.get(event.paymentReference);
        if (!payment || !(await concerns(event, payment, deps.operators))) continue;
        const [inserted] = await tx
          .insert(commerceEvents)
          .values({
            commercePaymentId: payment.id,
            type: event.type,
            amount: event.amount,
            network,
            txHash: event.txHash,
            logIndex: event.logIndex,
            blockNumber: event.blockNumber,
            blockHash: event.blockHash,
            blockTime: event.timestamp,
          })
          .onConflictDoNothing({
            target: [commerceEvents.network, commerceEvents.txHash, commerceEvents.logIndex],
          })
          .returning();
        if (!inserted) continue;
        recorded += 1;
        const current = await learnFrom(tx, payment, event, now);
        byReference.set(event.paymentReference, current);
        await enqueueCommerceEvent(tx, { chains: deps.chains, now }, current, inserted);
      }
      return recorded;
    },
    async dropped(tx, fork, now) {
      deps.operators.forget();
      const events = await tx
        .delete(commerceEvents)
        .where(and(eq(commerceEvents.network, network), gt(commerceEvents.blockNumber, fork)))
        .returning();
      if (events.length === 0) return 0;
      await undoConfirmedActions(tx, events, now);
      const payments = await tx
        .select()
        .from(commercePayments)
        .where(inArray(commercePayments.id, [...new Set(events.map((e) => e.commercePaymentId))]));
      const byId = new Map(payments.map((row) => [row.id, row]));
      await revertCommerceEvents(
        tx,
        { chains: deps.chains, now },
        events.flatMap((event) => {
          const payment = byId.get(event.commercePaymentId);
          return payment ? [{ payment, event }] : [];
        }),
      );
      return events.length;
    },
  };
}

/** The watchers of a network's indexer: the commerce wrapper's, where the network has one. */
export function commerceWatchers(
  chains: ChainRegistry,
  clients: Pick<ChainClients, 'evm'>,
  network: NetworkId,
): LogWatcher[] {
  if (chains.network(network)?.kind !== 'evm') return [];
  const wrapper = chains.contracts(network).commerceEscrowWrapper;
  const operators = createWrapperOperators(() => clients.evm(network));
  return wrapper ? [createCommerceWatcher({ chains, network, wrapper, operators })] : [];
}

/**
 * A confirmed action whose event a reorganisation took back no longer counts as done: its
 * transaction is off the chain, and counting it (state.ts counts a confirmed action until its
 * event is detected) would count it a second time beside the one that replaces it. Should the
 * transaction be mined again, detection records its event, which counts.
 */
async function undoConfirmedActions(
  tx: Database,
  events: readonly { readonly commercePaymentId: string; readonly txHash: string }[],
  now: Date,
): Promise<void> {
  await tx
    .update(commerceActions)
    .set({ status: 'failed', failureReason: 'taken back by a reorganisation', endedAt: now })
    .where(
      and(
        inArray(commerceActions.commercePaymentId, [
          ...new Set(events.map((e) => e.commercePaymentId)),
        ]),
        eq(commerceActions.status, 'confirmed'),
        inArray(sql`lower(${commerceActions.txHash})`, [
          ...new Set(events.map((e) => e.txHash.toLowerCase())),
        ]),
      ),
    );
}

/**
 * What an authorization (or a charge) tells us that the row may not know yet: the buyer, when
 * the payment was created without one (a link the buyer authorizes from the pay page), and the
 * escrow's hash of the payment. Never overwrites what the row holds.
 */
async function learnFrom(
  tx: Database,
  payment: CommercePaymentRow,
  event: CommerceLogEvent,
  now: Date,
): Promise<CommercePaymentRow> {
  if (event.type !== 'authorized' && event.type !== 'charged') return payment;
  const payer = payment.payer ?? event.payer;
  const hash = payment.commercePaymentHash ?? event.commercePaymentHash;
  // The request's payer, when it had none: the buyer, whom its payments name (detect-legs.ts).
  if (payer !== null) {
    await tx
      .update(requests)
      .set({ payer })
      .where(and(eq(requests.requestId, payment.requestId), isNull(requests.payer)));
  }
  if (payer === payment.payer && hash === payment.commercePaymentHash) return payment;
  const [updated] = await tx
    .update(commercePayments)
    .set({
      payer: sql`coalesce(${commercePayments.payer}, ${payer})`,
      commercePaymentHash: sql`coalesce(${commercePayments.commercePaymentHash}, ${hash})`,
      updatedAt: now,
    })
    .where(eq(commercePayments.id, payment.id))
    .returning();
  return updated ?? payment;
}
