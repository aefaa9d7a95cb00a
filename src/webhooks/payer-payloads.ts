/**
 * The payloads of the events about payers and their money leaving for a bank: a payer's KYC and
 * agreement (`compliance.updated`), a bank account's verification (`payment_detail.updated`),
 * both sent by src/payer/, and the off-ramp's progress of a crypto-to-fiat request
 * (`payment.processing`, then `payment.confirmed`/`payment.partial` or `payment.failed`), sent by
 * src/offramp/. The other kinds' payloads are in events.ts.
 */

/** `compliance.updated` (api-facts §1.2, §1.6): a payer's KYC or agreement status changed. */
export interface ComplianceUpdatedPayload {
  readonly event: 'compliance.updated';
  readonly clientUserId: string;
  readonly kycStatus: string;
  readonly agreementStatus: string;
  readonly isCompliant: boolean;
  readonly timestamp: string;
  /** The compliance provider's status fields that caused it (no personal field). */
  readonly rawPayload: Readonly<Record<string, unknown>>;
}

/**
 * `payment_detail.updated`: a bank account's verification status changed (`pending`,
 * `approved`, `failed`). The reference does not document its payload; ours is this one.
 */
export interface PaymentDetailUpdatedPayload {
  readonly event: 'payment_detail.updated';
  readonly clientUserId: string;
  readonly paymentDetailsId: string;
  readonly status: string;
  readonly timestamp: string;
  readonly rawPayload: Readonly<Record<string, unknown>>;
}

/** What the off-ramp provider reported, as crypto-to-fiat events carry it (`rawPayload`). */
interface OfframpRawPayload {
  readonly status: string;
  readonly providerId: string;
  readonly eventId: string | null;
  readonly eventType: string | null;
}

/** Fields every crypto-to-fiat event carries (src/offramp/events.ts). */
interface OfframpEventBase {
  readonly requestId: string;
  readonly requestID: string;
  readonly paymentReference: string;
  readonly offrampId: string;
  readonly timestamp: string;
  readonly paymentProcessor: 'request-tech';
  readonly isCryptoToFiat: true;
  readonly network: string;
  readonly paymentCurrency: string;
  readonly amount: string;
  readonly expectedAmount: string;
  readonly totalAmountPaid: string;
  /** The payment to the provider's deposit address, once detection saw it. */
  readonly txHash: string | null;
  readonly clientId?: string;
}

/** `payment.processing`: each step of the off-ramp's progress (api-facts §1.2, §1.6). */
export interface OfframpProcessingPayload extends OfframpEventBase {
  readonly event: 'payment.processing';
  readonly subStatus:
    | 'initiated'
    | 'pending_internal_assessment'
    | 'ongoing_checks'
    | 'sending_fiat'
    | 'retry_required'
    | 'fiat_sent';
  readonly rawPayload: OfframpRawPayload;
}

/** `payment.confirmed` of a crypto-to-fiat request: sent once fiat is sent, not on chain. */
export interface OfframpConfirmedPayload extends OfframpEventBase {
  /** `payment.partial` when fiat was sent for part of what the request is owed. */
  readonly event: 'payment.confirmed' | 'payment.partial';
  readonly subStatus: 'fiat_sent';
  readonly currency: string;
  readonly explorer: string | null;
  readonly payerAddress: string | null;
  readonly payerEoaAddress: string | null;
  /** The off-ramp's deposit address the payer paid. */
  readonly payee: string;
  readonly fees: readonly { type: string; amount: string; currency: string }[];
  readonly rawPayload: OfframpRawPayload;
}

/** `payment.failed` of a crypto-to-fiat request: the off-ramp failed or the bank bounced it. */
export interface OfframpFailedPayload extends OfframpEventBase {
  readonly event: 'payment.failed';
  readonly subStatus: 'failed' | 'bounced';
  readonly rawPayload: OfframpRawPayload;
}
