import { and, asc, eq, inArray } from 'drizzle-orm';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import {
  feeLegPayments,
  feeLegs,
  paymentIntents,
  payments,
  webhookDeliveries,
  webhooks,
} from '../db/schema.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { RequestRow } from '../requests/requests.ts';

/**
 * payreq's own hops of a request's path, derived when a journey is read from the tables that
 * already hold them (no copy is written): the request's creation, the payer's intents, the
 * payments detection matched, its fee legs' payments, and the webhooks those payments sent.
 * Each source reads one table or two; a new kind of hop is a new source.
 *
 * The seam for cross-chain bridge status: a source of `bridge_status` hops, passed to
 * `journeyRoutes` as one of its `hopSources` by the server's wiring (so journeys need not import
 * the code that tracks bridges).
 */

export type PayreqHopType =
  | 'request_created'
  | 'payment_intent'
  | 'bridge_status'
  | 'payment_detected'
  | 'fee_leg_paid'
  | 'webhook_sent';

export interface PayreqHop {
  /** Stable across reads: the kind of row and its id. */
  readonly id: string;
  readonly type: PayreqHopType;
  readonly status: string;
  /** A decimal string in `currency`, when the hop moves or names an amount. */
  readonly amount: string | null;
  readonly currency: string | null;
  /** A transaction (or Safe transaction, user operation) hash, when the hop has one. */
  readonly txReference: string | null;
  /** When payreq saw or did it. */
  readonly at: Date;
  readonly rawPayload: Readonly<Record<string, unknown>>;
}

export interface HopContext {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly request: RequestRow;
}

export type HopSource = (context: HopContext) => Promise<readonly PayreqHop[]>;

/**
 * Where hops at the same instant go, earliest first: the path's own order (a request exists
 * before it is paid, a payment before the webhook that reports it). Processors' steps come
 * after payreq's at the same instant.
 */
export const HOP_RANK: Readonly<Record<PayreqHopType, number>> = {
  request_created: 0,
  payment_intent: 1,
  bridge_status: 2,
  payment_detected: 3,
  fee_leg_paid: 4,
  webhook_sent: 5,
};

const requestCreated: HopSource = async ({ chains, request }) => {
  const decimals =
    chains.currency(request.invoiceCurrency)?.decimals ??
    chains.currency(request.paymentCurrency)?.decimals ??
    0;
  return [
    {
      id: `request:${request.id}`,
      type: 'request_created',
      status: 'created',
      amount: formatAmount(request.expectedAmount, decimals),
      currency: request.invoiceCurrency,
      txReference: null,
      at: request.createdAt,
      rawPayload: {
        network: request.network,
        payee: request.payee,
        paymentReference: `0x${request.paymentReference}`,
        paymentCurrency: request.paymentCurrency,
        securePayment: request.securePaymentId !== null,
      },
    },
  ];
};

/** Intents are recorded against the request's link; a request made alone has none. */
const intentsRecorded: HopSource = async ({ db, request }) => {
  if (request.securePaymentId === null) return [];
  const rows = await db
    .select()
    .from(paymentIntents)
    .where(eq(paymentIntents.securePaymentId, request.securePaymentId))
    .orderBy(asc(paymentIntents.createdAt));
  return rows.map((row) => ({
    id: `intent:${row.id}`,
    type: 'payment_intent',
    status: row.status,
    amount: null,
    currency: null,
    txReference: row.txHash ?? row.safeTxHash ?? row.userOpHash,
    at: row.createdAt,
    rawPayload: {
      kind: row.kind,
      network: row.network,
      txHash: row.txHash,
      safeTxHash: row.safeTxHash,
      payerAddress: row.payerAddress,
      payerEoaAddress: row.payerEoaAddress,
      failureReason: row.failureReason,
      endedAt: row.endedAt?.toISOString() ?? null,
    },
  }));
};

/** The payments detection matched, and the account's webhooks each one sent. */
const paymentsDetected: HopSource = async ({ db, chains, request }) => {
  const rows = await db
    .select()
    .from(payments)
    .where(eq(payments.requestRowId, request.id))
    .orderBy(asc(payments.blockNumber), asc(payments.logIndex));
  if (rows.length === 0) return [];
  const decimals = chains.currency(request.paymentCurrency)?.decimals ?? 0;
  const detected: PayreqHop[] = rows.map((row) => ({
    id: `payment:${row.id}`,
    type: 'payment_detected',
    status: 'detected',
    amount: formatAmount(row.amount, decimals),
    currency: request.paymentCurrency,
    txReference: row.txHash,
    at: row.createdAt,
    rawPayload: {
      network: row.network,
      blockNumber: row.blockNumber.toString(),
      blockTimestamp: row.timestamp.toISOString(),
      logIndex: row.logIndex,
      payee: row.payee,
      payerAddress: row.payerAddress,
      payerEoaAddress: row.payerEoaAddress,
      feeAmount: formatAmount(row.feeAmount, decimals),
    },
  }));
  // Only the account's own endpoints: an orchestrator's are its business.
  const sent = await db
    .select({ delivery: webhookDeliveries })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(
      and(
        inArray(
          webhookDeliveries.paymentId,
          rows.map((row) => row.id),
        ),
        eq(webhooks.accountId, request.accountId),
      ),
    )
    .orderBy(asc(webhookDeliveries.id));
  const detectedAt = new Map(rows.map((row) => [row.id, row.createdAt]));
  return [
    ...detected,
    ...sent.map(({ delivery }) => ({
      id: `webhook:${delivery.id}`,
      type: 'webhook_sent' as const,
      status: delivery.status,
      amount: null,
      currency: null,
      txReference: null,
      // A delivery is written in the transaction that records its payment, stamped by the
      // app's clock when detection's round began, the payment by the database's as the
      // transaction did: never before the payment it reports, whatever the two clocks say.
      at: latest(
        delivery.createdAt,
        delivery.paymentId === null ? undefined : detectedAt.get(delivery.paymentId),
      ),
      rawPayload: {
        event: delivery.event,
        queuedAt: delivery.createdAt.toISOString(),
        webhookId: delivery.webhookId,
        deliveryId: delivery.id,
        paymentId: delivery.paymentId,
        attempts: delivery.attempts,
        lastStatusCode: delivery.lastStatusCode,
        deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
      },
    })),
  ];
};

function latest(time: Date, other: Date | undefined): Date {
  return other && other > time ? other : time;
}

const feeLegsPaid: HopSource = async ({ db, chains, request }) => {
  const rows = await db
    .select({ leg: feeLegs, paid: feeLegPayments })
    .from(feeLegPayments)
    .innerJoin(feeLegs, eq(feeLegs.id, feeLegPayments.feeLegId))
    .where(eq(feeLegs.requestRowId, request.id))
    .orderBy(asc(feeLegPayments.blockNumber), asc(feeLegPayments.logIndex));
  return rows.map(({ leg, paid }) => ({
    id: `fee-payment:${paid.id}`,
    type: 'fee_leg_paid',
    status: 'detected',
    amount: formatAmount(paid.amount, chains.currency(leg.currency)?.decimals ?? 0),
    currency: leg.currency,
    txReference: paid.txHash,
    at: paid.createdAt,
    rawPayload: {
      network: paid.network,
      blockNumber: paid.blockNumber.toString(),
      blockTimestamp: paid.timestamp.toISOString(),
      logIndex: paid.logIndex,
      feeType: leg.type,
      label: leg.label,
      recipient: leg.recipient,
      payerAddress: paid.payerAddress,
    },
  }));
};

/** The sources every journey reads; the server's wiring may add more (bridge status). */
export const HOP_SOURCES: readonly HopSource[] = [
  requestCreated,
  intentsRecorded,
  paymentsDetected,
  feeLegsPaid,
];

export async function payreqHops(
  context: HopContext,
  sources: readonly HopSource[],
): Promise<PayreqHop[]> {
  const found = await Promise.all(sources.map((source) => source(context)));
  return found.flat();
}
