import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { linkedOrchestrators } from '../auth/client-id-orchestrator.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { inChunks } from '../db/chunks.ts';
import type { Database } from '../db/client.ts';
import { webhookDeliveries } from '../db/schema.ts';
import { type FeeLegView, feeLegViewsOf } from '../fees/legs.ts';
import { conversionRate, formatAmount, formatUsd } from '../payments/amounts.ts';
import type { Claimed } from '../webhooks/claims.ts';
import type { PaymentEventPayload } from '../webhooks/events.ts';
import { orchestratorWebhookIds } from '../webhooks/orchestrator-webhooks.ts';
import {
  deliveryRows,
  insertDeliveries,
  type Listeners,
  listeners,
  type WrittenDelivery,
} from '../webhooks/outbox.ts';
import type { RequestRow } from './requests.ts';
import { type RequestUnits, requestUnits } from './units.ts';

/**
 * The payment events of the reference API (api-facts §1.6): `payment.confirmed` or
 * `payment.partial` for every payment, plus the `.client_id` variant when the request was made
 * with a client ID and the `.checkout` variant when it belongs to a secure payment link.
 * Written into the outbox in the transaction that records the payment.
 */

/** One payment as detection recorded it, with the request it paid. */
export interface PaidRequest {
  /** The request after the payment was counted. */
  readonly request: RequestRow;
  readonly payment: {
    readonly id: string;
    readonly network: NetworkId;
    readonly txHash: string;
    /** Base units of the request's payment currency, fee excluded. */
    readonly amount: bigint;
    readonly feeAmount: bigint;
    /** What it counts for, in the invoice currency's base units (`amount` unless converted). */
    readonly requestAmount: bigint;
    /** USD with 8 decimals, on conversion payments whose block had a feed to USD. */
    readonly amountInUsd: bigint | null;
    readonly payerAddress: string | null;
    readonly payerEoaAddress: string | null;
    /** A payment settled on a third party's word: who said so, and our note (api-facts §18). */
    readonly settledBy?: { readonly detectionSource: string; readonly note: string } | undefined;
  };
  /**
   * The request's secure payment link, if it has one: its token, and whether the request may
   * carry fee legs (`PaidLink.charged`).
   */
  readonly link: { readonly token: string; readonly charged: boolean } | null;
}

/** Who made the request, as the `.client_id` events name them. */
interface RequestOrigin {
  readonly clientId: string;
  /** The browser origin the request was created from; null for server-side calls. */
  readonly origin: string | null;
}

/**
 * The body of `payment.confirmed` / `payment.partial` for one payment. `timestamp` is when we
 * recorded it (our clock), never the block's: chains' clocks drift, and the sandbox's runs
 * ahead of the wall clock.
 */
function paymentEventPayload(
  chains: ChainRegistry,
  paid: PaidRequest,
  origin: RequestOrigin | null,
  recordedAt: Date,
  feeLegs: readonly FeeLegView[],
): PaymentEventPayload {
  const { request, payment } = paid;
  const units = requestUnits(chains, request);
  const { invoice, decimals } = units;
  const paymentDecimals = units.payment?.decimals ?? 0;
  const excess = request.totalAmountPaid - request.expectedAmount;
  return {
    event: request.status === 'paid' ? 'payment.confirmed' : 'payment.partial',
    requestId: request.requestId,
    requestID: request.requestId,
    paymentReference: `0x${request.paymentReference}`,
    explorer: chains.explorerTxUrl(payment.network, payment.txHash),
    amount: formatAmount(payment.requestAmount, decimals),
    totalAmountPaid: formatAmount(request.totalAmountPaid, decimals),
    expectedAmount: formatAmount(request.expectedAmount, decimals),
    ...(excess > 0n && { excessAmount: formatAmount(excess, decimals) }),
    timestamp: recordedAt.toISOString(),
    txHash: payment.txHash,
    payerAddress: payment.payerAddress,
    payerEoaAddress: payment.payerEoaAddress,
    ...(payment.settledBy && {
      detectionSource: payment.settledBy.detectionSource,
      note: payment.settledBy.note,
    }),
    payee: request.payee,
    network: request.network,
    currency: invoice?.symbol ?? request.invoiceCurrency,
    paymentCurrency: request.paymentCurrency,
    ...(units.converts && conversionFields(payment, units)),
    isCryptoToFiat: false,
    subStatus: '',
    paymentProcessor: 'request-network',
    fees: [
      ...(payment.feeAmount > 0n
        ? [
            {
              type: 'platform',
              amount: formatAmount(payment.feeAmount, paymentDecimals),
              currency: request.paymentCurrency,
            },
          ]
        : []),
      ...feeLegs
        .filter((leg) => leg.status === 'paid')
        .map((leg) => ({
          type: leg.type === 'protocol_fee' ? 'protocol' : 'platform',
          amount: leg.amount,
          currency: leg.currency,
        })),
    ],
    ...(feeLegs.length > 0 && { feeLegs: feeLegs.map(feeLegPayload) }),
    ...(origin && { clientId: origin.clientId, origin: origin.origin }),
  };
}

function feeLegPayload(leg: FeeLegView) {
  return {
    type: leg.type,
    feeBearer: leg.feeBearer,
    amount: leg.amount,
    currency: leg.currency,
    recipient: leg.recipient,
    paymentReference: leg.paymentReference,
    status: leg.status,
    txHash: leg.txHash,
  };
}

/**
 * Ours, on conversion payments: what the wallet sent (`paymentAmount`, in the payment
 * currency) next to what it counted for (`amount`, in the invoice currency), and the rate.
 */
function conversionFields(payment: PaidRequest['payment'], units: RequestUnits) {
  const paymentDecimals = units.payment?.decimals ?? 0;
  return {
    paymentAmount: formatAmount(payment.amount, paymentDecimals),
    conversionRate: conversionRate(
      { amount: payment.amount, decimals: paymentDecimals },
      { amount: payment.requestAmount, decimals: units.decimals },
    ),
    rateSource: 'chainlink' as const,
    amountInUsd: payment.amountInUsd === null ? null : formatUsd(payment.amountInUsd),
  };
}

/** Who hears of requests' events, by audience (`audienceKey`): `listeners` of each. */
export type Heard = ReadonlyMap<string, Listeners>;

const audienceKey = (request: Pick<RequestRow, 'accountId' | 'clientIdId'>) =>
  `${request.accountId} ${request.clientIdId}`;

/**
 * Who hears of the requests' events: each audience asked once, but those `known` already. The
 * detection of a new block's few payments asks before its transaction, beside the node, so that
 * the transaction between the block and its webhooks holds one statement less; an endpoint
 * registered or removed meanwhile is as one that changed just after the events were written.
 */
export async function readListeners(
  db: Database,
  requests: readonly Pick<RequestRow, 'accountId' | 'clientIdId'>[],
  known?: Heard,
): Promise<Heard> {
  const audiences = new Map(
    requests.map((r) => [audienceKey(r), { accountId: r.accountId, clientIdId: r.clientIdId }]),
  );
  return new Map(
    await Promise.all(
      [...audiences].map(
        async ([key, audience]) =>
          [key, known?.get(key) ?? (await listeners(db, audience))] as const,
      ),
    ),
  );
}

/**
 * Writes the payments' events into the outbox, in the payments' order. When `lease` grants
 * room they are written claimed by this process's dispatcher and returned ready to send, for it
 * to be handed them on commit. Whatever the number of payments, the database is asked once per
 * audience, once for the fee legs and once for the orchestrators, and the rows go in a few
 * multi-row statements (a backlog's thousands of payments are not thousands of each).
 */
export async function enqueuePaymentEvents(
  tx: Database,
  deps: {
    readonly chains: ChainRegistry;
    readonly now: Date;
    readonly lease?: ((rows: number) => Date | null) | undefined;
    /** Who hears of some of the requests, read before the transaction (`readListeners`). */
    readonly heard?: Heard | undefined;
    /** Other writes the first statement makes (webhooks/outbox.ts's `insertDeliveries`). */
    readonly alongside?: SQL | null;
  },
  paid: readonly PaidRequest[],
): Promise<Claimed[]> {
  if (paid.length === 0) {
    await insertDeliveries(tx, [], deps.alongside ?? null);
    return [];
  }
  const audienceOf = ({ request }: PaidRequest) => audienceKey(request);
  // Only a link's request can carry fee legs, and not when the link's plan has no fees.
  const linked = [...new Set(paid.flatMap((p) => (p.link?.charged ? [p.request.id] : [])))];
  const clientIdIds = [...new Set(paid.flatMap((p) => p.request.clientIdId ?? []))];
  const [heard, feeLegs, orchestrators] = await Promise.all([
    readListeners(
      tx,
      paid.map((p) => p.request),
      deps.heard,
    ),
    inChunks(linked, async (chunk) => [...(await feeLegViewsOf(tx, deps.chains, chunk))]).then(
      (entries) => new Map(entries),
    ),
    inChunks(clientIdIds, async (chunk) => [...(await linkedOrchestrators(tx, chunk))]).then(
      (entries) => new Map(entries),
    ),
  ]);
  const orchestratorHooks = new Map(
    await Promise.all(
      [...new Set([...orchestrators.values()].map((o) => o.id))].map(
        async (id) => [id, await orchestratorWebhookIds(tx, id)] as const,
      ),
    ),
  );
  const rows: WrittenDelivery[] = [];
  const claimed: Claimed[] = [];
  for (const one of paid) {
    const { request } = one;
    const audience = heard.get(audienceOf(one));
    if (audience === undefined) continue;
    const { webhookIds, endpoints, clientId } = audience;
    // The orchestrator of the client ID gets `payment.confirmed` too (webhooks-0.31.md names
    // it a recipient), with its fee legs: a fee left unpaid is never news to it alone. Written
    // unclaimed: its dispatcher picks it up as any retry.
    const orchestrator =
      request.clientIdId === null ? undefined : orchestrators.get(request.clientIdId);
    // Nobody to tell (a backlog's payments to an account with no webhook): no payload made.
    if (webhookIds.length === 0 && orchestrator === undefined) continue;
    const origin = clientId === null ? null : { clientId, origin: request.origin };
    const legs = feeLegs.get(request.id) ?? [];
    const { event, ...base } = paymentEventPayload(deps.chains, one, origin, deps.now, legs);
    const paymentId = one.payment.id;
    if (orchestrator !== undefined && event === 'payment.confirmed') {
      rows.push(
        ...deliveryRows(
          deps.now,
          orchestratorHooks.get(orchestrator.id) ?? [],
          [{ event, payload: { ...base, orchestratorId: orchestrator.id } }],
          { paymentId },
        ),
      );
    }
    if (webhookIds.length === 0) continue;
    const events: { event: string; payload: Record<string, unknown> }[] = [
      { event, payload: base },
    ];
    if (origin !== null) events.push({ event: `${event}.client_id`, payload: base });
    if (one.link !== null) {
      events.push({
        event: `${event}.checkout`,
        payload: { ...base, securePaymentToken: one.link.token },
      });
    }
    const written = deliveryRows(deps.now, webhookIds, events, { paymentId, lease: deps.lease });
    rows.push(...written);
    for (const row of written) {
      const endpoint = endpoints.get(row.webhookId);
      if (endpoint && row.lockedUntil) {
        claimed.push({
          id: row.id,
          webhook_id: row.webhookId,
          owner: request.accountId,
          body: row.body,
          test: row.test,
          attempts: 1,
          created_ms: row.createdAt.getTime(),
          leased_until_ms: row.lockedUntil.getTime(),
          url: endpoint.url,
          secret_sealed: endpoint.secretSealed,
          live: true,
          retry_backoff_seconds: endpoint.retryBackoffSeconds,
          retry_max_delay_seconds: endpoint.retryMaxDelaySeconds,
          retry_for_seconds: endpoint.retryForSeconds,
        });
      }
    }
  }
  await insertDeliveries(tx, rows, deps.alongside ?? null);
  return claimed;
}

/** Why a delivery was cancelled by a reorganisation, in its log. */
export const REORGED = 'cancelled: the payment is no longer on the chain (reorganisation)';

/** The unsent deliveries of payments a reorganisation dropped (those sent cannot be unsent). */
export async function cancelPaymentDeliveries(
  tx: Database,
  paymentIds: readonly string[],
): Promise<void> {
  if (paymentIds.length === 0) return;
  await tx
    .update(webhookDeliveries)
    .set({ status: 'failed', lockedUntil: null, lastError: REORGED })
    .where(
      and(
        inArray(webhookDeliveries.paymentId, [...paymentIds]),
        eq(webhookDeliveries.status, 'pending'),
      ),
    );
}
