/**
 * The bodies payreq's webhooks carry, one type per `event` (docs/webhooks.md, "Events"). The
 * OpenAPI document describes requests and answers, not deliveries, so these are written by
 * hand; they are the one definition: the server builds its payloads as these types
 * (src/webhooks/events.ts, src/payer/events.ts, src/offramp/events.ts,
 * src/secure-payments/user-event-payload.ts), and test/client.test.ts compiles real deliveries
 * of every kind against them, which catches a field the server adds that they lack.
 */

/** A fee as the payment events list it (those paid). */
interface PaymentFee {
  readonly type: string;
  readonly amount: string;
  readonly currency: string;
}

/** A fee leg of the link's fee plan, paid or outstanding when the event was written. */
interface FeeLeg extends PaymentFee {
  readonly feeBearer: string;
  readonly recipient: string;
  readonly paymentReference: string;
  readonly status: 'paid' | 'outstanding';
  readonly txHash: string | null;
}

/** What every event about one request carries. */
interface RequestEventBase {
  readonly requestId: string;
  /** The reference API repeats the id under this spelling too. */
  readonly requestID: string;
  readonly paymentReference: string;
  readonly timestamp: string;
}

/**
 * `payment.confirmed` / `payment.partial` of an on-chain payment, and their `.client_id` and
 * `.checkout` variants (which add `clientId` and `origin`, and `securePaymentToken`).
 */
export interface PaymentEvent extends RequestEventBase {
  readonly event:
    | 'payment.confirmed'
    | 'payment.partial'
    | 'payment.confirmed.client_id'
    | 'payment.partial.client_id'
    | 'payment.confirmed.checkout'
    | 'payment.partial.checkout';
  readonly explorer: string | null;
  /** This transaction's amount, human-readable. */
  readonly amount: string;
  /** Everything paid so far, human-readable. */
  readonly totalAmountPaid: string;
  readonly expectedAmount: string;
  /** Present when more than expected was paid. */
  readonly excessAmount?: string;
  readonly txHash: string;
  readonly payerAddress: string | null;
  readonly payerEoaAddress: string | null;
  readonly payee: string;
  readonly network: string;
  readonly currency: string;
  readonly paymentCurrency: string;
  readonly isCryptoToFiat: false;
  readonly subStatus: '';
  readonly paymentProcessor: 'request-network';
  readonly fees: readonly PaymentFee[];
  readonly feeLegs?: readonly FeeLeg[];
  readonly orchestratorId?: string;
  readonly clientId?: string;
  /** The browser origin the request was created from; null for server-side calls. */
  readonly origin?: string | null;
  readonly securePaymentToken?: string;
  /** A payment by conversion: what the wallet sent, in the payment currency. */
  readonly paymentAmount?: string;
  readonly conversionRate?: string;
  readonly rateSource?: 'chainlink';
  readonly amountInUsd?: string | null;
  /** A payment settled on the routing aggregator's word (`lifi`). */
  readonly detectionSource?: string;
  readonly note?: string;
}

/** What the off-ramp provider reported, as crypto-to-fiat events carry it. */
interface OfframpReport {
  readonly status: string;
  readonly providerId: string;
  readonly eventId: string | null;
  readonly eventType: string | null;
}

interface OfframpEventBase extends RequestEventBase {
  readonly offrampId: string;
  readonly paymentProcessor: 'request-tech';
  readonly isCryptoToFiat: true;
  readonly network: string;
  readonly paymentCurrency: string;
  readonly amount: string;
  readonly expectedAmount: string;
  readonly totalAmountPaid: string;
  readonly txHash: string | null;
  readonly clientId?: string;
  readonly rawPayload: OfframpReport;
}

/** `payment.processing`: a crypto-to-fiat transfer moved to another state. */
export interface OfframpProcessingEvent extends OfframpEventBase {
  readonly event: 'payment.processing';
  readonly subStatus:
    | 'initiated'
    | 'pending_internal_assessment'
    | 'ongoing_checks'
    | 'sending_fiat'
    | 'retry_required'
    | 'fiat_sent';
}

/** `payment.confirmed` / `payment.partial` of a crypto-to-fiat request: fiat was sent. */
export interface OfframpConfirmedEvent extends OfframpEventBase {
  readonly event: 'payment.confirmed' | 'payment.partial';
  readonly subStatus: 'fiat_sent';
  readonly currency: string;
  readonly explorer: string | null;
  readonly payerAddress: string | null;
  readonly payerEoaAddress: string | null;
  readonly payee: string;
  readonly fees: readonly PaymentFee[];
}

/** `payment.failed` of a crypto-to-fiat request: the off-ramp failed or the bank bounced it. */
export interface OfframpFailedEvent extends OfframpEventBase {
  readonly event: 'payment.failed';
  readonly subStatus: 'failed' | 'bounced';
}

/**
 * `payment.failed` of an on-chain payment: a recurring payout's execution (`recurringPaymentId`,
 * `paymentIndex`), a payer's Safe transaction or cross-chain transfer (`securePaymentToken`,
 * `network`), or a completed link whose payer it refuses (`compliance_failed`).
 */
export interface PaymentFailedEvent extends RequestEventBase {
  readonly event: 'payment.failed';
  readonly subStatus: 'failed' | 'compliance_failed';
  readonly paymentProcessor: 'request-network';
  readonly failureReason?: string;
  readonly recurringPaymentId?: string;
  readonly paymentIndex?: number;
  readonly network?: string;
  readonly clientId?: string;
  readonly securePaymentToken?: string;
  readonly safeTxHash?: string;
  readonly payerAddress?: string | null;
  readonly txHash?: string;
}

/** `payment.refunded`: the bridge returned a payer's cross-chain transfer to it. */
export interface PaymentRefundedEvent extends RequestEventBase {
  readonly event: 'payment.refunded';
  readonly refundedTo: string | null;
  readonly refundAmount: string;
  readonly currency: string;
  readonly txHash?: string;
  readonly network: string;
  readonly paymentProcessor: 'request-network';
  readonly refundTxHash?: string | null;
  readonly securePaymentToken?: string;
  readonly safeTxHash?: string;
  readonly payerAddress?: string | null;
  readonly clientId?: string;
}

/** `request.recurring`: a recurring request's schedule made its next occurrence. */
export interface RequestRecurringEvent extends RequestEventBase {
  readonly event: 'request.recurring';
  readonly originalRequestId: string;
  readonly originalRequestPaymentReference: string;
}

/** `compliance.updated`: a payer's KYC or agreement status changed. */
export interface ComplianceUpdatedEvent {
  readonly event: 'compliance.updated';
  readonly clientUserId: string;
  readonly kycStatus: string;
  readonly agreementStatus: string;
  readonly isCompliant: boolean;
  readonly timestamp: string;
  readonly rawPayload: Readonly<Record<string, unknown>>;
}

/** `payment_detail.updated`: a bank account's verification status changed. */
export interface PaymentDetailUpdatedEvent {
  readonly event: 'payment_detail.updated';
  readonly clientUserId: string;
  readonly paymentDetailsId: string;
  readonly status: string;
  readonly timestamp: string;
  readonly rawPayload: Readonly<Record<string, unknown>>;
}

/** `secure_payment.user_event`: the pay page's telemetry; never a settlement signal. */
export interface SecurePaymentUserEvent {
  readonly event: 'secure_payment.user_event';
  readonly userEvent: string;
  readonly securePaymentToken: string;
  readonly requestId?: string;
  readonly requestIds: readonly string[];
  readonly clientId?: string;
  readonly orchestratorId?: string;
  readonly occurredAt: string;
  readonly timestamp: string;
  readonly properties: Readonly<
    Record<string, string | number | boolean | readonly string[] | null>
  >;
}

/** `secure_payment.access_rejected`: a wallet not on a link's allowed payers tried it. */
export interface SecurePaymentAccessRejectedEvent {
  readonly event: 'secure_payment.access_rejected';
  readonly requestId: string;
  readonly attemptedPayerWalletAddress: string;
  readonly timestamp: string;
}

/** `commerce_payment.*`: the commerce wrapper's event of that name was recorded (or reverted). */
export interface CommercePaymentEvent extends RequestEventBase {
  readonly event:
    | 'commerce_payment.authorized'
    | 'commerce_payment.captured'
    | 'commerce_payment.voided'
    | 'commerce_payment.refunded'
    | 'commerce_payment.reclaimed'
    | 'commerce_payment.charged';
  readonly network: string;
  readonly currency: string;
  readonly paymentCurrency: string;
  readonly amount: string;
  readonly authorizedAmount: string;
  readonly capturedAmount: string;
  readonly refundedAmount: string;
  readonly merchant: string;
  readonly payer: string;
  readonly commercePaymentHash: string;
  readonly txHash: string;
  readonly blockNumber: string;
  readonly logIndex: number;
  readonly blockTimestamp: string;
  readonly explorer: string | null;
  /** A reorganisation took the event off the chain: the transition is taken back. */
  readonly reverted: boolean;
  readonly clientId?: string;
  readonly origin?: string | null;
}

/** `client_id.linked` (to orchestrators): a client ID was linked through a link intent. */
export interface ClientIdLinkedEvent {
  readonly event: 'client_id.linked';
  readonly clientId: string;
  readonly orchestratorId: string;
  readonly linkId: string;
  readonly intentId: string;
  readonly externalId: string;
  readonly destinationId: string;
  readonly destinationWalletAddress: string;
  readonly chain: string;
  readonly currency: string;
  readonly timestamp: string;
}

/** `kyt.screening.completed` (to orchestrators): a screening provider answered on a payer. */
export interface KytScreeningCompletedEvent {
  readonly event: 'kyt.screening.completed';
  readonly paymentToken: string;
  readonly clientId?: string;
  readonly orchestratorId?: string;
  readonly walletAddress: string;
  readonly eoaAddress: string;
  readonly smartAccountAddress: string | null;
  readonly status: 'approved' | 'rejected';
  readonly provider: string;
  readonly policyId: string | null;
  readonly timestamp: string;
}

/** Every delivery's body: switch on `event` to narrow it. */
export type WebhookEvent =
  | PaymentEvent
  | OfframpProcessingEvent
  | OfframpConfirmedEvent
  | OfframpFailedEvent
  | PaymentFailedEvent
  | PaymentRefundedEvent
  | RequestRecurringEvent
  | ComplianceUpdatedEvent
  | PaymentDetailUpdatedEvent
  | SecurePaymentUserEvent
  | SecurePaymentAccessRejectedEvent
  | CommercePaymentEvent
  | ClientIdLinkedEvent
  | KytScreeningCompletedEvent;

export type WebhookEventType = WebhookEvent['event'];
