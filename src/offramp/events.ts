import { and, eq, isNotNull, lt, ne } from 'drizzle-orm';
import type {
  OfframpConfirmedEvent,
  OfframpFailedEvent,
  OfframpProcessingEvent,
} from '../../packages/client/src/webhook-events.ts';
import { linkedOrchestrators } from '../auth/client-id-orchestrator.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { offrampTransfers, payments } from '../db/schema.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { RequestRow } from '../requests/requests.ts';
import { requestUnits } from '../requests/units.ts';
import { orchestratorWebhookIds } from '../webhooks/orchestrator-webhooks.ts';
import { listeners, writeDeliveries } from '../webhooks/outbox.ts';
import { FINAL_RANK, type ReportedState } from './states.ts';
import type { TransferRow } from './transfers.ts';

/**
 * The webhooks of a crypto-to-fiat request, one set per state the provider moved its transfer
 * to: `payment.processing` for each step (`fiat_sent` included), then, once fiat is sent,
 * `payment.confirmed` when that makes the request fully paid through delivered fiat (no other
 * deposit of it still on its way to the bank) or `payment.partial` when it does not;
 * `payment.failed` when it failed or bounced. A `fiat_sent` never gets here before detection saw
 * the deposit (callbacks.ts refuses it). The on-chain payment to the deposit
 * address sends none (workers/settlement.ts): the reference confirms these requests "after
 * fiat is delivered". Written in the transaction that moves the transfer.
 */
export async function enqueueOfframpEvents(
  tx: Database,
  deps: { readonly chains: ChainRegistry; readonly now: Date },
  request: RequestRow,
  transfer: TransferRow,
  state: ReportedState,
  report: { readonly eventId: string | null; readonly eventType: string | null },
): Promise<void> {
  const { webhookIds, clientId } = await listeners(tx, {
    accountId: request.accountId,
    clientIdId: request.clientIdId,
  });
  const { decimals } = requestUnits(deps.chains, request);
  const paymentDecimals = deps.chains.currency(request.paymentCurrency)?.decimals ?? decimals;
  const paid = await depositPayment(tx, request, transfer);
  const rawPayload = {
    status: state,
    providerId: transfer.providerTransferId,
    eventId: report.eventId,
    eventType: report.eventType,
  };
  const base = {
    requestId: request.requestId,
    requestID: request.requestId,
    paymentReference: `0x${request.paymentReference}`,
    offrampId: transfer.providerTransferId,
    timestamp: deps.now.toISOString(),
    paymentProcessor: 'request-tech' as const,
    isCryptoToFiat: true as const,
    network: request.network,
    paymentCurrency: request.paymentCurrency,
    // What the payer deposited, once detection saw it; what the provider was told until then.
    amount: formatAmount(paid?.amount ?? transfer.amount, paymentDecimals),
    expectedAmount: formatAmount(request.expectedAmount, decimals),
    totalAmountPaid: formatAmount(request.totalAmountPaid, decimals),
    txHash: transfer.txHash,
    ...(clientId !== null && { clientId }),
  };
  const events: (OfframpProcessingEvent | OfframpConfirmedEvent | OfframpFailedEvent)[] = [];
  if (state === 'failed' || state === 'bounced') {
    events.push({ ...base, event: 'payment.failed', subStatus: state, rawPayload });
  } else {
    events.push({ ...base, event: 'payment.processing', subStatus: state, rawPayload });
    if (state === 'fiat_sent') {
      const complete =
        request.status === 'paid' && !(await otherDepositUnderWay(tx, request, transfer));
      events.push({
        ...base,
        event: complete ? 'payment.confirmed' : 'payment.partial',
        subStatus: 'fiat_sent',
        currency: deps.chains.currency(request.invoiceCurrency)?.symbol ?? request.invoiceCurrency,
        // What the normal payment.confirmed says of the payment on chain, for receivers with
        // the reference's strict schema.
        explorer: explorerOf(deps.chains, request.network, transfer.txHash),
        payerAddress: paid?.payerAddress ?? null,
        payerEoaAddress: paid?.payerEoaAddress ?? null,
        payee: transfer.depositAddress,
        fees: [],
        rawPayload,
      });
    }
  }
  const deliveries: { event: string; payload: Record<string, unknown> }[] = events.map(
    ({ event, ...payload }) => ({ event, payload }),
  );
  const settled = deliveries.find(
    (d) => d.event === 'payment.confirmed' || d.event === 'payment.partial',
  );
  // As detection's events (requests/payment-events.ts): the `.client_id` variant for a client
  // ID's request, and payment.confirmed to the client ID's orchestrator.
  if (settled && clientId !== null)
    deliveries.push({ ...settled, event: `${settled.event}.client_id` });
  const orchestrator =
    request.clientIdId === null
      ? undefined
      : (await linkedOrchestrators(tx, [request.clientIdId])).get(request.clientIdId);
  if (orchestrator !== undefined && settled?.event === 'payment.confirmed') {
    await writeDeliveries(tx, deps.now, await orchestratorWebhookIds(tx, orchestrator.id), [
      { ...settled, payload: { ...settled.payload, orchestratorId: orchestrator.id } },
    ]);
  }
  await writeDeliveries(tx, deps.now, webhookIds, deliveries);
}

/** The deposit's payment, as detection recorded it; null before detection saw it. */
export async function depositPayment(tx: Database, request: RequestRow, transfer: TransferRow) {
  if (transfer.txHash === null) return null;
  const [row] = await tx
    .select({
      payerAddress: payments.payerAddress,
      payerEoaAddress: payments.payerEoaAddress,
      amount: payments.amount,
      requestAmount: payments.requestAmount,
    })
    .from(payments)
    .where(and(eq(payments.requestRowId, request.id), eq(payments.txHash, transfer.txHash)))
    .limit(1);
  return row ?? null;
}

/** Another transfer of the request was paid on chain and has not ended: its fiat is not sent. */
async function otherDepositUnderWay(tx: Database, request: RequestRow, transfer: TransferRow) {
  const [other] = await tx
    .select({ id: offrampTransfers.id })
    .from(offrampTransfers)
    .where(
      and(
        eq(offrampTransfers.requestRowId, request.id),
        ne(offrampTransfers.id, transfer.id),
        isNotNull(offrampTransfers.txHash),
        lt(offrampTransfers.rank, FINAL_RANK),
      ),
    )
    .limit(1);
  return other !== undefined;
}

function explorerOf(chains: ChainRegistry, networkId: string, txHash: string | null) {
  const network = chains.network(networkId);
  return network && txHash !== null ? chains.explorerTxUrl(network.id, txHash) : null;
}
