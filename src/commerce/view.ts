import { isoFromSeconds } from '../base/dates.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { CommerceActionRow, CommerceEventRow } from './payment.ts';
import type { LoadedPayment } from './store.ts';

/**
 * `GET /v2/commerce-payments/{requestId}/status`: 0.31.0's schema (the latest event: `type`,
 * `timestamp`, `transactionHash`, `blockNumber`) and its example (the whole payment) together,
 * plus the amounts a caller needs to act (capturable, refundable, voided, reclaimed) and what
 * it may do (`canCapture`, `canVoid`, `canRefund`, and the payer's `canReclaim`).
 */

type EventType = 'AUTHORIZED' | 'CAPTURED' | 'VOIDED' | 'REFUNDED' | 'RECLAIMED';

interface EventView {
  readonly type: EventType;
  readonly timestamp: string;
  readonly transactionHash: string;
  readonly blockNumber?: string;
}

const EVENT_TYPES: Readonly<Record<CommerceEventRow['type'], EventType>> = {
  authorized: 'AUTHORIZED',
  charged: 'CAPTURED',
  captured: 'CAPTURED',
  voided: 'VOIDED',
  refunded: 'REFUNDED',
  reclaimed: 'RECLAIMED',
};

const ACTION_TYPES: Readonly<Record<CommerceActionRow['kind'], EventType>> = {
  authorize: 'AUTHORIZED',
  capture: 'CAPTURED',
  void: 'VOIDED',
  refund: 'REFUNDED',
};

/**
 * The detected events, then the execute operations' transactions whose receipt succeeded and
 * which detection has not seen yet (no block number until it does).
 */
function eventViews(loaded: LoadedPayment): EventView[] {
  const detected = new Set(loaded.events.map((e) => e.txHash.toLowerCase()));
  const views: EventView[] = loaded.events.map((event) => ({
    type: EVENT_TYPES[event.type],
    timestamp: event.blockTime.toISOString(),
    transactionHash: event.txHash,
    blockNumber: event.blockNumber.toString(),
  }));
  for (const action of loaded.actions) {
    if (action.status !== 'confirmed' || action.txHash === null) continue;
    if (detected.has(action.txHash.toLowerCase())) continue;
    views.push({
      type: ACTION_TYPES[action.kind],
      timestamp: (action.endedAt ?? action.createdAt).toISOString(),
      transactionHash: action.txHash,
    });
  }
  return views;
}

/**
 * payreq's `canReclaim`: something is still held and the chain's clock (the `now` the state was
 * judged at, chain-time.ts) has passed `authorizationExpiry`, so the payer's `reclaimPayment`
 * succeeds, whatever the status says (a partly captured hold reads `PAID`).
 */
export function canReclaim({ payment, state, now }: LoadedPayment): boolean {
  return state.held > 0n && Math.floor(now.getTime() / 1000) >= payment.authorizationExpiry;
}

/**
 * The latest event's `type` and `timestamp` (0.31.0's schema). Before any event there is none to
 * repeat, and 0.31.0's `type` has no value for "nothing yet" (only its `EXPIRED` and `FAILED`
 * describe a payment no event moved: its pre-approval ran out, its authorization failed): both
 * are absent then, as in 0.31.0's example, and `status` (`PENDING`, `AUTHORIZING`) says where
 * the payment stands.
 */
function latestOf(
  { payment, state, actions }: LoadedPayment,
  events: EventView[],
): { type: EventType | 'EXPIRED' | 'FAILED'; timestamp: string } | Record<string, never> {
  const latest = events.at(-1);
  if (latest) return latest;
  if (state.status === 'EXPIRED') {
    return { type: state.status, timestamp: isoFromSeconds(payment.preApprovalExpiry) };
  }
  if (state.status === 'FAILED') {
    const failed = actions.findLast((a) => a.status === 'failed');
    return { type: state.status, timestamp: (failed?.endedAt ?? payment.updatedAt).toISOString() };
  }
  return {};
}

/** When anything last happened to the payment: its creation, an event or an action. */
function lastChange(loaded: LoadedPayment): Date {
  const times = [
    loaded.payment.updatedAt,
    ...loaded.events.map((e) => e.blockTime),
    ...loaded.actions.map((a) => a.endedAt ?? a.createdAt),
  ];
  return new Date(Math.max(...times.map((time) => time.getTime())));
}

export function statusView(chains: ChainRegistry, loaded: LoadedPayment) {
  const { payment, state } = loaded;
  const decimals = chains.currency(payment.currency)?.decimals;
  if (decimals === undefined) throw new Error(`currency ${payment.currency} is no longer served`);
  const amount = (value: bigint) => formatAmount(value, decimals);
  const events = eventViews(loaded);
  return {
    ...latestOf(loaded, events),
    requestId: payment.requestId,
    status: state.status,
    payer: payment.payer ?? '',
    merchant: payment.merchant,
    operator: payment.operator,
    token: payment.tokenAddress,
    currency: payment.currency,
    network: payment.network,
    amount: amount(payment.amount),
    maxAmount: amount(payment.maxAmount),
    authorizedAmount: amount(state.authorized),
    capturedAmount: amount(state.captured),
    capturableAmount: amount(state.capturable),
    refundedAmount: amount(state.refunded),
    refundableAmount: amount(state.refundable),
    voidedAmount: amount(state.voided),
    reclaimedAmount: amount(state.reclaimed),
    paymentReference: payment.paymentReference,
    commercePaymentHash: payment.commercePaymentHash ?? '',
    preApprovalExpiry: isoFromSeconds(payment.preApprovalExpiry),
    authorizationExpiry: isoFromSeconds(payment.authorizationExpiry),
    refundExpiry: isoFromSeconds(payment.refundExpiry),
    canCapture: state.canCapture,
    canVoid: state.canVoid,
    canRefund: state.canRefund,
    canReclaim: canReclaim(loaded),
    createdAt: payment.createdAt.toISOString(),
    updatedAt: lastChange(loaded).toISOString(),
    events,
  };
}
