import { and, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { Currency } from '../chains/currencies.ts';
import { isNative } from '../chains/currencies.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import {
  chainBlocks,
  chainCheckpoints,
  clientIds,
  payments,
  requests,
  securePayments,
  webhookDeliveries,
} from '../db/schema.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { PaymentEventPayload } from '../webhooks/events.ts';
import { enqueue, targetWebhooks } from '../webhooks/outbox.ts';
import type { DetectedPayment } from './types.ts';

type RequestRow = typeof requests.$inferSelect;

/** Blocks whose hashes are kept per network, to find where a reorganisation forked. */
const REMEMBERED_BLOCKS = 512;

export interface MatchedPayment {
  readonly event: DetectedPayment;
  readonly request: RequestRow;
}

/** Open requests of a network whose reference topics appear among the events. */
export async function matchRequests(
  db: Database,
  chains: ChainRegistry,
  network: NetworkId,
  events: readonly DetectedPayment[],
): Promise<MatchedPayment[]> {
  const topics = [...new Set(events.map((e) => e.referenceTopic.toLowerCase()))];
  if (topics.length === 0) return [];
  const rows = await db
    .select()
    .from(requests)
    .where(and(eq(requests.network, network), inArray(requests.referenceTopic, topics)));
  const byTopic = new Map(rows.map((row) => [row.referenceTopic, row]));
  const matched: MatchedPayment[] = [];
  for (const event of events) {
    const request = byTopic.get(event.referenceTopic.toLowerCase());
    const currency = request ? chains.currency(request.paymentCurrency) : undefined;
    if (request && currency && paysRequest(event, request, currency))
      matched.push({ event, request });
  }
  return matched;
}

/** The reference alone is not enough: the right token must reach the right payee. */
function paysRequest(event: DetectedPayment, request: RequestRow, currency: Currency): boolean {
  const sameAddress = (a: string, b: string) =>
    a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b;
  const token = isNative(currency)
    ? event.tokenAddress === null
    : event.tokenAddress !== null && sameAddress(event.tokenAddress, currency.address);
  return token && sameAddress(event.payee, request.payee);
}

export interface Checkpoint {
  readonly network: NetworkId;
  /** Every block up to here is now recorded. */
  readonly lastBlock: bigint;
  /** Hashes to remember: the checkpoint block's and those of blocks holding payments. */
  readonly blocks: readonly { readonly number: bigint; readonly hash: string }[];
}

/**
 * Records matched payments and moves the checkpoint, in one transaction with everything that
 * follows from them: request totals and status, the link's completion, and the webhook
 * deliveries. A payment already recorded (same network, tx, log index) changes nothing, so a
 * range scanned twice after a crash is harmless. Returns the number of new payments.
 */
export async function recordPayments(
  db: Database,
  deps: { chains: ChainRegistry; now: Date },
  matched: readonly MatchedPayment[],
  checkpoint: Checkpoint,
): Promise<number> {
  return db.transaction(async (tx) => {
    let recorded = 0;
    for (const { event, request } of matched) {
      const [inserted] = await tx
        .insert(payments)
        .values({
          accountId: request.accountId,
          requestRowId: request.id,
          network: event.network,
          txHash: event.txHash,
          logIndex: event.logIndex,
          blockNumber: event.blockNumber,
          blockHash: event.blockHash,
          amount: event.amount,
          feeAmount: event.feeAmount,
          feeAddress: event.feeAddress,
          tokenAddress: event.tokenAddress,
          payee: event.payee,
          payerAddress: event.payerAddress,
          payerEoaAddress: null,
          paymentReference: request.paymentReference,
          timestamp: event.timestamp,
        })
        .onConflictDoNothing({ target: [payments.network, payments.txHash, payments.logIndex] })
        .returning({ id: payments.id });
      if (!inserted) continue;
      recorded += 1;
      // Re-read under a row lock: totals accumulate across payments of one scan.
      const [current] = await tx
        .select()
        .from(requests)
        .where(eq(requests.id, request.id))
        .for('update');
      if (!current) continue;
      const total = current.totalAmountPaid + event.amount;
      const paid = total >= current.expectedAmount;
      const [updated] = await tx
        .update(requests)
        .set({
          totalAmountPaid: total,
          status: paid ? 'paid' : 'partially_paid',
          ...(paid && current.paidAt === null && { paidAt: deps.now }),
        })
        .where(eq(requests.id, request.id))
        .returning();
      if (!updated) continue;
      const linkToken = await completeLinkIfPaid(tx, updated, deps.now);
      await enqueuePaymentEvents(tx, deps, updated, { ...event, id: inserted.id }, linkToken);
    }
    await saveCheckpoint(tx, checkpoint);
    return recorded;
  });
}

/** A link is completed when every one of its requests is paid; returns the link's token. */
async function completeLinkIfPaid(
  tx: Database,
  request: RequestRow,
  now: Date,
): Promise<string | null> {
  if (request.securePaymentId === null) return null;
  const [unpaid] = await tx
    .select({ id: requests.id })
    .from(requests)
    .where(and(eq(requests.securePaymentId, request.securePaymentId), ne(requests.status, 'paid')))
    .limit(1);
  if (!unpaid) {
    await tx
      .update(securePayments)
      .set({ status: 'completed', completedAt: now })
      .where(
        and(eq(securePayments.id, request.securePaymentId), eq(securePayments.status, 'pending')),
      );
  }
  const [link] = await tx
    .select({ token: securePayments.token })
    .from(securePayments)
    .where(eq(securePayments.id, request.securePaymentId));
  return link?.token ?? null;
}

async function enqueuePaymentEvents(
  tx: Database,
  deps: { chains: ChainRegistry; now: Date },
  request: RequestRow,
  event: DetectedPayment & { readonly id: string },
  linkToken: string | null,
): Promise<void> {
  const currency = deps.chains.currency(request.paymentCurrency);
  const network = deps.chains.network(request.network);
  const decimals = currency?.decimals ?? 0;
  const confirmed = request.status === 'paid';
  const kind = confirmed ? 'payment.confirmed' : 'payment.partial';
  const invoice = deps.chains.currency(request.invoiceCurrency);
  const excess = request.totalAmountPaid - request.expectedAmount;
  const base: Omit<PaymentEventPayload, 'event'> = {
    requestId: request.requestId,
    requestID: request.requestId,
    paymentReference: `0x${request.paymentReference}`,
    explorer: network?.explorerUrl
      ? `${network.explorerUrl}${network.explorerTxPath}${event.txHash}`
      : null,
    amount: formatAmount(event.amount, decimals),
    totalAmountPaid: formatAmount(request.totalAmountPaid, decimals),
    expectedAmount: formatAmount(request.expectedAmount, decimals),
    ...(excess > 0n && { excessAmount: formatAmount(excess, decimals) }),
    timestamp: event.timestamp.toISOString(),
    txHash: event.txHash,
    payerAddress: event.payerAddress,
    payerEoaAddress: null,
    payee: request.payee,
    network: request.network,
    currency: invoice?.symbol ?? request.invoiceCurrency,
    paymentCurrency: request.paymentCurrency,
    isCryptoToFiat: false,
    subStatus: '',
    paymentProcessor: 'request-network',
    fees:
      event.feeAmount > 0n
        ? [
            {
              type: 'platform',
              amount: formatAmount(event.feeAmount, decimals),
              currency: request.paymentCurrency,
            },
          ]
        : [],
  };
  const webhooks = await targetWebhooks(tx, {
    accountId: request.accountId,
    clientIdId: request.clientIdId,
  });
  if (webhooks.length === 0) return;
  const events: { event: string; payload: Record<string, unknown> }[] = [
    { event: kind, payload: { ...base } },
  ];
  if (request.clientIdId !== null) {
    const [client] = await tx
      .select({ clientId: clientIds.clientId })
      .from(clientIds)
      .where(eq(clientIds.id, request.clientIdId));
    events.push({
      event: `${kind}.client_id`,
      payload: { ...base, clientId: client?.clientId ?? null, origin: null },
    });
  }
  if (linkToken !== null) {
    events.push({ event: `${kind}.checkout`, payload: { ...base, securePaymentToken: linkToken } });
  }
  await enqueue(tx, deps.now, webhooks, events, { paymentId: event.id });
}

async function saveCheckpoint(tx: Database, checkpoint: Checkpoint): Promise<void> {
  await tx
    .insert(chainCheckpoints)
    .values({ network: checkpoint.network, lastBlock: checkpoint.lastBlock })
    .onConflictDoUpdate({
      target: chainCheckpoints.network,
      set: { lastBlock: checkpoint.lastBlock, updatedAt: sql`now()` },
    });
  if (checkpoint.blocks.length > 0) {
    await tx
      .insert(chainBlocks)
      .values(
        checkpoint.blocks.map((b) => ({
          network: checkpoint.network,
          number: b.number,
          hash: b.hash,
        })),
      )
      .onConflictDoUpdate({
        target: [chainBlocks.network, chainBlocks.number],
        set: { hash: sql`excluded.hash` },
      });
  }
  const oldest = checkpoint.lastBlock - BigInt(REMEMBERED_BLOCKS * 8);
  await tx
    .delete(chainBlocks)
    .where(
      and(eq(chainBlocks.network, checkpoint.network), sql`${chainBlocks.number} < ${oldest}`),
    );
}

/** Why a delivery was cancelled by a reorganisation, in its log. */
export const REORGED = 'cancelled: the payment is no longer on the chain (reorganisation)';

/**
 * Undoes everything recorded above `fork` on a network after a reorganisation: payments are
 * deleted and subtracted from their requests, which go back to partially paid or pending,
 * and their links back to pending. Their deliveries not yet sent are cancelled (those already
 * sent cannot be unsent); the next scan records, and announces, what the new chain holds.
 */
export async function rollBack(db: Database, network: NetworkId, fork: bigint): Promise<number> {
  return db.transaction(async (tx) => {
    const dropped = await tx
      .delete(payments)
      .where(and(eq(payments.network, network), gt(payments.blockNumber, fork)))
      .returning();
    if (dropped.length > 0) {
      await tx
        .update(webhookDeliveries)
        .set({ status: 'failed', lockedUntil: null, lastError: REORGED })
        .where(
          and(
            inArray(
              webhookDeliveries.paymentId,
              dropped.map((payment) => payment.id),
            ),
            eq(webhookDeliveries.status, 'pending'),
          ),
        );
    }
    for (const payment of dropped) {
      const [request] = await tx
        .select()
        .from(requests)
        .where(eq(requests.id, payment.requestRowId))
        .for('update');
      if (!request) continue;
      const total = request.totalAmountPaid - payment.amount;
      const paid = total >= request.expectedAmount;
      await tx
        .update(requests)
        .set({
          totalAmountPaid: total,
          status: paid ? 'paid' : total > 0n ? 'partially_paid' : 'pending',
          ...(!paid && { paidAt: null }),
        })
        .where(eq(requests.id, request.id));
      if (!paid && request.securePaymentId !== null) {
        await tx
          .update(securePayments)
          .set({ status: 'pending', completedAt: null })
          .where(
            and(
              eq(securePayments.id, request.securePaymentId),
              eq(securePayments.status, 'completed'),
            ),
          );
      }
    }
    await tx
      .delete(chainBlocks)
      .where(and(eq(chainBlocks.network, network), gt(chainBlocks.number, fork)));
    await tx
      .insert(chainCheckpoints)
      .values({ network, lastBlock: fork })
      .onConflictDoUpdate({
        target: chainCheckpoints.network,
        set: { lastBlock: fork, updatedAt: sql`now()` },
      });
    return dropped.length;
  });
}
