import type { CommerceActionKind, CommerceEventType } from '../db/schema.ts';

/**
 * A commerce payment's state, computed from what the wrapper's events say happened (detection
 * writes them) and what the execute operations have in flight. Pure: the same rows and the same
 * `now` give the same state.
 *
 * Actions count until an event of the same transaction is detected: one in flight (`pending`,
 * `sent`) reserves its amount, so two captures cannot both take the last of it; one whose
 * receipt succeeded (`confirmed`) counts as done. A `failed` action frees its amount; so does
 * a confirmed one whose event a reorganisation took back (detect-events.ts fails it).
 */

export const COMMERCE_STATUSES = [
  'PENDING',
  'AUTHORIZING',
  'AUTHORIZED',
  'CAPTURING',
  'PAID',
  'VOIDING',
  'VOIDED',
  'REFUNDING',
  'REFUNDED',
  'PARTIALLY_REFUNDED',
  'EXPIRED',
  'RECLAIMED',
  'FAILED',
] as const;
type CommerceStatus = (typeof COMMERCE_STATUSES)[number];

export interface StateEvent {
  readonly type: CommerceEventType;
  readonly amount: bigint;
  readonly txHash: string;
  readonly blockNumber: bigint;
  readonly blockTime: Date;
}

export interface StateAction {
  readonly kind: CommerceActionKind;
  readonly amount: bigint;
  readonly status: 'pending' | 'sent' | 'confirmed' | 'failed';
  readonly txHash: string | null;
  readonly createdAt: Date;
}

export interface StateTerms {
  /** Unix seconds. */
  readonly preApprovalExpiry: number;
  readonly authorizationExpiry: number;
  readonly refundExpiry: number;
}

export interface CommerceState {
  readonly status: CommerceStatus;
  readonly authorized: bigint;
  readonly captured: bigint;
  readonly voided: bigint;
  readonly reclaimed: bigint;
  readonly refunded: bigint;
  /** Held in the escrow: authorized and neither captured, voided nor reclaimed. */
  readonly held: bigint;
  /** What a new capture may take: held, less captures in flight. */
  readonly capturable: bigint;
  /** What a new refund may return: captured and not refunded, less refunds in flight. */
  readonly refundable: bigint;
  /** In flight: an authorization, a capture, a void. */
  readonly authorizing: boolean;
  readonly capturing: boolean;
  readonly voiding: boolean;
  readonly canCapture: boolean;
  readonly canVoid: boolean;
  readonly canRefund: boolean;
  /** The detected events, oldest first. */
  readonly events: readonly StateEvent[];
}

const IN_FLIGHT = new Set(['pending', 'sent']);

export function commerceState(input: {
  readonly terms: StateTerms;
  readonly events: readonly StateEvent[];
  readonly actions: readonly StateAction[];
  readonly now: Date;
}): CommerceState {
  const events = [...input.events].sort((a, b) =>
    a.blockNumber === b.blockNumber ? 0 : a.blockNumber < b.blockNumber ? -1 : 1,
  );
  const detected = new Set(events.map((event) => event.txHash.toLowerCase()));
  const undetected = input.actions.filter(
    (action) => action.txHash === null || !detected.has(action.txHash.toLowerCase()),
  );

  let authorized = 0n;
  let captured = 0n;
  let voided = 0n;
  let reclaimed = 0n;
  let refunded = 0n;
  for (const event of events) {
    switch (event.type) {
      case 'authorized':
        authorized += event.amount;
        break;
      case 'charged':
        authorized += event.amount;
        captured += event.amount;
        break;
      case 'captured':
        captured += event.amount;
        break;
      case 'voided':
        voided += event.amount;
        break;
      case 'reclaimed':
        reclaimed += event.amount;
        break;
      case 'refunded':
        refunded += event.amount;
        break;
    }
  }
  // Confirmed and not yet detected: done, in the order they were sent.
  const confirmed = undetected
    .filter((action) => action.status === 'confirmed')
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  for (const action of confirmed) {
    switch (action.kind) {
      case 'authorize':
        authorized += action.amount;
        break;
      case 'capture':
        captured += action.amount;
        break;
      case 'void':
        // A void releases whatever is still held.
        voided += positive(authorized - captured - voided - reclaimed);
        break;
      case 'refund':
        refunded += action.amount;
        break;
    }
  }
  const inFlight = undetected.filter((action) => IN_FLIGHT.has(action.status));
  const flying = (kind: CommerceActionKind) => inFlight.filter((a) => a.kind === kind);
  const sum = (actions: readonly StateAction[]) => actions.reduce((n, a) => n + a.amount, 0n);

  const held = positive(authorized - captured - voided - reclaimed);
  const capturable = positive(held - sum(flying('capture')));
  const refundable = positive(captured - refunded - sum(flying('refund')));
  const authorizing = flying('authorize').length > 0;
  const capturing = flying('capture').length > 0;
  const voiding = flying('void').length > 0;
  const nowSeconds = Math.floor(input.now.getTime() / 1000);
  const { terms } = input;
  const beforeAuthorizationExpiry = nowSeconds < terms.authorizationExpiry;

  const status = statusOf({
    authorized,
    captured,
    voided,
    reclaimed,
    refunded,
    held,
    inFlight,
    // An authorization that reached the chain and failed there; one refused before it was sent
    // (its estimate reverted, or it was never broadcast) leaves the payment as it was.
    failed: undetected.some(
      (a) => a.status === 'failed' && a.kind === 'authorize' && a.txHash !== null,
    ),
    preApprovalOver: nowSeconds >= terms.preApprovalExpiry,
    authorizationOver: !beforeAuthorizationExpiry,
  });
  return {
    status,
    authorized,
    captured,
    voided,
    reclaimed,
    refunded,
    held,
    capturable,
    refundable,
    authorizing,
    capturing,
    voiding,
    canCapture: capturable > 0n && beforeAuthorizationExpiry && !voiding,
    // A void releases all that is held: not while a capture may still take part of it.
    canVoid: held > 0n && !voiding && !capturing,
    canRefund: refundable > 0n && nowSeconds < terms.refundExpiry,
    events,
  };
}

function positive(value: bigint): bigint {
  return value > 0n ? value : 0n;
}

/**
 * In flight first (what the operator is doing now), then the last word on the funds: reclaimed
 * or voided before any capture; refunded, wholly or in part; paid once anything is captured;
 * held past the authorization's expiry (the payer may reclaim) or still held.
 */
function statusOf(s: {
  readonly authorized: bigint;
  readonly captured: bigint;
  readonly voided: bigint;
  readonly reclaimed: bigint;
  readonly refunded: bigint;
  readonly held: bigint;
  readonly inFlight: readonly StateAction[];
  readonly failed: boolean;
  readonly preApprovalOver: boolean;
  readonly authorizationOver: boolean;
}): CommerceStatus {
  const latest = s.inFlight.at(-1);
  if (latest) {
    switch (latest.kind) {
      case 'authorize':
        return 'AUTHORIZING';
      case 'capture':
        return 'CAPTURING';
      case 'void':
        return 'VOIDING';
      case 'refund':
        return 'REFUNDING';
    }
  }
  if (s.authorized === 0n) {
    if (s.failed) return 'FAILED';
    return s.preApprovalOver ? 'EXPIRED' : 'PENDING';
  }
  if (s.captured === 0n) {
    if (s.reclaimed > 0n) return 'RECLAIMED';
    if (s.voided > 0n) return 'VOIDED';
  }
  if (s.refunded > 0n) return s.refunded >= s.captured ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
  if (s.captured > 0n) return 'PAID';
  return s.authorizationOver ? 'EXPIRED' : 'AUTHORIZED';
}
