import type { PaymentEvent } from '../../packages/client/src/webhook-events.ts';

/**
 * The twelve event kinds of the spec and the reference's two newer `secure_payment.*` ones
 * (decisions.md). Payment detection emits `payment.confirmed`, `payment.partial` and their
 * `.client_id` and `.checkout` variants, the recurring-request generator `request.recurring`,
 * the pay page's telemetry `secure_payment.user_event`; the others have their payload shape
 * here and can be sent with `POST /v1/webhook/test` until their emitters land.
 */
const EVENT_TYPES = [
  'payment.confirmed',
  'payment.partial',
  'payment.failed',
  'payment.refunded',
  'payment.confirmed.client_id',
  'payment.partial.client_id',
  'payment.confirmed.checkout',
  'payment.partial.checkout',
  'payment.processing',
  'request.recurring',
  'compliance.updated',
  'payment_detail.updated',
  'secure_payment.user_event',
  'secure_payment.access_rejected',
] as const;

type EventType = (typeof EVENT_TYPES)[number];

/**
 * What `POST /v1/webhook/test` sends: every kind above, and the reference's two orchestrator
 * events, which its Auth API 0.14.0 test operation accepts too (webhooks-0.31.md) though
 * nothing here emits them.
 */
export const TEST_EVENT_TYPES = [
  ...EVENT_TYPES,
  'client_id.linked',
  'kyt.screening.completed',
] as const;

export type TestEventType = (typeof TEST_EVENT_TYPES)[number];

export function isTestEventType(value: string): value is TestEventType {
  return (TEST_EVENT_TYPES as readonly string[]).includes(value);
}

/** The wallet test deliveries name as the payer (sender and signer). */
const SAMPLE_PAYER = '0x0000000000000000000000000000000000000001';

/**
 * The body of `payment.confirmed` / `payment.partial` (api-facts §1.6) and their variants: the
 * client package's type, whose `event` the server builds from a wider set.
 */
export type PaymentEventPayload = Omit<PaymentEvent, 'event'> & { readonly event: EventType };

/**
 * A sample body for each kind, for test deliveries (marked with the test header). The payment
 * kinds carry every field a real delivery does, filled (`clientId` is the caller's when it
 * called with one), so a receiver with a strict schema can be tried on them.
 */
export function sampleEvent(
  event: TestEventType,
  now: Date,
  clientId = 'cli_test',
): Record<string, unknown> {
  const base = {
    event,
    requestId: `01${'0'.repeat(64)}`,
    requestID: `01${'0'.repeat(64)}`,
    paymentReference: '0x0000000000000000',
    timestamp: now.toISOString(),
  };
  switch (event) {
    case 'payment.confirmed':
    case 'payment.partial':
    case 'payment.confirmed.client_id':
    case 'payment.partial.client_id':
    case 'payment.confirmed.checkout':
    case 'payment.partial.checkout':
      return {
        ...base,
        explorer: `https://sepolia.etherscan.io/tx/0x${'0'.repeat(64)}`,
        amount: '10',
        totalAmountPaid: event.startsWith('payment.partial') ? '10' : '20',
        expectedAmount: '20',
        txHash: `0x${'0'.repeat(64)}`,
        payerAddress: SAMPLE_PAYER,
        payerEoaAddress: SAMPLE_PAYER,
        payee: '0x0000000000000000000000000000000000000000',
        network: 'sepolia',
        currency: 'USDC',
        paymentCurrency: 'USDC-sepolia',
        isCryptoToFiat: false,
        subStatus: '',
        paymentProcessor: 'request-network',
        fees: [],
        clientId,
        origin: null,
        ...(event.endsWith('.checkout') && { securePaymentToken: '00000000000000000000000000' }),
      };
    case 'payment.failed':
      return { ...base, subStatus: 'failed', paymentProcessor: 'request-network' };
    case 'payment.refunded':
      return {
        ...base,
        refundedTo: '0x0000000000000000000000000000000000000000',
        refundAmount: '10',
        currency: 'USDC-sepolia',
        txHash: `0x${'0'.repeat(64)}`,
        network: 'sepolia',
        paymentProcessor: 'request-network',
      };
    case 'payment.processing':
      return {
        ...base,
        offrampId: 'test',
        subStatus: 'initiated',
        paymentProcessor: 'request-tech',
        isCryptoToFiat: true,
        network: 'sepolia',
        paymentCurrency: 'USDC-sepolia',
        amount: '10',
        expectedAmount: '10',
        totalAmountPaid: '10',
        txHash: `0x${'0'.repeat(64)}`,
        clientId,
        rawPayload: { status: 'initiated', providerId: 'test', eventId: null, eventType: null },
      };
    case 'request.recurring':
      return {
        ...base,
        originalRequestId: `01${'1'.repeat(64)}`,
        originalRequestPaymentReference: '0x1111111111111111',
      };
    case 'compliance.updated':
      return {
        event,
        clientUserId: 'test-user',
        kycStatus: 'approved',
        agreementStatus: 'completed',
        isCompliant: true,
        timestamp: now.toISOString(),
        rawPayload: {},
      };
    case 'payment_detail.updated':
      return {
        event,
        clientUserId: 'test-user',
        paymentDetailsId: 'test',
        status: 'approved',
        timestamp: now.toISOString(),
        rawPayload: {},
      };
    case 'secure_payment.user_event':
      return {
        event,
        userEvent: 'wallet_connected',
        securePaymentToken: '00000000000000000000000000',
        requestId: base.requestId,
        requestIds: [base.requestId],
        clientId: 'cli_test',
        occurredAt: now.toISOString(),
        timestamp: now.toISOString(),
        properties: { wallet_provider: 'test' },
      };
    case 'secure_payment.access_rejected':
      return {
        event,
        requestId: base.requestId,
        attemptedPayerWalletAddress: '0x0000000000000000000000000000000000000001',
        timestamp: now.toISOString(),
      };
    case 'client_id.linked':
      return {
        event,
        clientId,
        orchestratorId: 'orc_test',
        linkId: 'test',
        intentId: 'test',
        externalId: 'test',
        destinationId: `${SAMPLE_PAYER}@eip155:11155111#00000000:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238`,
        destinationWalletAddress: SAMPLE_PAYER,
        chain: 'sepolia',
        currency: 'USDC',
        timestamp: now.toISOString(),
      };
    case 'kyt.screening.completed':
      return {
        event,
        paymentToken: '00000000000000000000000000',
        clientId,
        orchestratorId: 'orc_test',
        walletAddress: SAMPLE_PAYER,
        eoaAddress: SAMPLE_PAYER,
        smartAccountAddress: null,
        status: 'approved',
        provider: 'test',
        policyId: null,
        timestamp: now.toISOString(),
      };
  }
}
