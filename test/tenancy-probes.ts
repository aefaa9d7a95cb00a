import type { Hex } from 'viem';

/**
 * The tenant isolation matrix (test/e2e/tenancy.test.ts): the credentials each tenant holds, the
 * objects of A's that a probe names, and for every authenticated route what B must get when
 * it names them.
 */

export const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

export const KINDS = [
  'apiKey',
  'clientId',
  'session',
  'orchestratorKey',
  'orchestratorPair',
  /** B's orchestrator key with A's client ID, which is not linked to it. */
  'foreignPair',
] as const;
export type Kind = (typeof KINDS)[number];

export interface Tenant {
  readonly name: string;
  readonly accountId: string;
  readonly wallet: string;
  readonly walletKey: Hex;
  readonly orchestratorId: string;
  readonly headers: Record<Kind, Record<string, string>>;
  /** The client ID of the `clientId` credential (webhooks registered with it are its own). */
  readonly clientId: string;
}

/** A's objects that one probe names. Mutating probes get a fresh set each. */
export interface Objects {
  readonly token: string;
  readonly requestId: string;
  /** A's journey of that request. */
  readonly journeyId: string;
  /** The original of A's recurring request (the only kind PATCH /v2/request changes). */
  readonly recurringRequestId: string;
  /** Its payment reference (0x and 16 hex digits): the v1 operations' key. */
  readonly recurringPaymentReference: string;
  /** A's commerce payment (made with A's API key, the server's operator, not authorized). */
  readonly commerceRequestId: string;
  /** Its pay token: the buyer's capability on the pay page (`?commerce=`). */
  readonly commercePayToken: string;
  /** A's payer (`/v2/payer`), its `userId`, its bank details' id and its (personal) e-mail. */
  readonly clientUserId: string;
  readonly payerUserId: string;
  readonly paymentDetailsId: string;
  readonly payerEmail: string;
  /** Two of A's pending payout links, to merge. */
  readonly payoutTokens: readonly string[];
  /** A's multicall payout of two other payout links. */
  readonly multicallToken: string;
  readonly destinationId: string;
  readonly webhookId: string;
  readonly webhookUrl: string;
  readonly webhookClientId: string;
  readonly deliveryId: string;
  readonly clientIdRowId: string;
  readonly clientIdLabel: string;
  readonly apiKeyId: string;
  /** A's client ID that A's orchestrator holds. */
  readonly linkedClientId: string;
  /** A's orchestrator's fee config for that client ID (incoming, payer-borne). */
  readonly feeConfigId: string;
  /** Its row id, which the account's client-ID routes take. */
  readonly linkedClientIdRowId: string;
  /** An endpoint of A's orchestrator (inactive) and its URL. */
  readonly orchestratorWebhookId: string;
  readonly orchestratorWebhookUrl: string;
  /** Nonces A fetched and A's wallet signed, to add and to deactivate the destination. */
  readonly add: { readonly nonce: string; readonly signature: Hex };
  readonly deactivate: { readonly nonce: string; readonly signature: Hex };
  /** A's recurring payout (pending) and its payer's (A's wallet's) signature over its permit. */
  readonly recurringPayoutId: string;
  readonly recurringSignature: Hex;
  /** Its pay token (`payUrl`): the payer's capability on the pay page. */
  readonly recurringPayToken: string;
}

type Expectation =
  /** Names A's object: B gets 403 or 404, or one of `codes` (the reference's 400s and 409s). */
  | { readonly kind: 'refused'; readonly codes?: readonly string[] }
  /** Acts on the caller's own data (lists, creation, B's own wallet): B may succeed. */
  | { readonly kind: 'own' }
  /** Answers about anyone, by design (documented where the route is built). */
  | { readonly kind: 'public' };

export interface Probe {
  readonly expect: Expectation;
  readonly query?: (o: Objects, caller: Tenant) => string;
  readonly body?: (o: Objects, caller: Tenant) => object;
  /** Which of A's credentials proves the call works; default: the first the route takes. */
  readonly as?: Kind;
  /**
   * A's own call cannot succeed with these fixtures (A's link is on Base): the code it answers
   * instead, one the route gives only once it has found A's link.
   */
  readonly ownCode?: string;
}

const refused = (...codes: string[]): Expectation => ({ kind: 'refused', codes });
const own: Expectation = { kind: 'own' };
let unique = 0;
export const next = () => {
  unique += 1;
  return unique;
};

/** A's wallet: the one its destination pays (`wallet@eip155:…`). */
const walletOf = (o: Objects): string => o.destinationId.split('@')[0] ?? '';

export const PROBES: Record<string, Probe> = {
  'GET /v2/currencies': { expect: { kind: 'public' }, query: () => 'id=USDC-base' },
  'GET /v2/currencies/:currencyId/conversion-routes': { expect: { kind: 'public' } },
  'GET /v1/currencies': { expect: { kind: 'public' }, query: () => 'id=USDC-base' },
  'GET /v1/currencies/:currencyId/conversion-routes': { expect: { kind: 'public' } },

  // Makes B's own account an orchestrator: nothing of A's is named.
  'POST /v2/orchestrators': { expect: own, body: () => ({ orchestratorName: `B ${next()}` }) },
  'GET /v2/orchestrators/client-ids': { expect: own },
  // Linking is by client ID value, as the reference API does; a client ID another
  // orchestrator holds stays with it.
  'POST /v2/orchestrators/client-ids': {
    expect: refused('client_id_linked_elsewhere'),
    body: (o) => ({ clientId: o.linkedClientId }),
  },
  'DELETE /v2/orchestrators/client-ids/:clientId': { expect: refused() },
  // A's configs are reached by id, or through the client ID A's orchestrator holds.
  'POST /v2/orchestrators/fee-configs': {
    expect: refused(),
    body: (o) => ({
      clientId: o.linkedClientId,
      flow: 'outgoing',
      feeBearer: 'recipient',
      bps: 25,
      evmRecipientAddress: walletOf(o),
    }),
  },
  'GET /v2/orchestrators/fee-configs': {
    expect: refused(),
    query: (o) => `clientId=${o.linkedClientId}`,
  },
  'PATCH /v2/orchestrators/fee-configs/:id': { expect: refused(), body: () => ({ bps: 7 }) },
  'DELETE /v2/orchestrators/fee-configs/:id': { expect: refused() },
  // A client ID's branding is its orchestrator's to read and change: another's gets 403, as if
  // the client ID did not exist. A's own create finds the branding its fixtures made.
  'POST /v2/orchestrators/branding': {
    expect: refused(),
    body: (o) => ({ clientId: o.linkedClientId, primaryActionColor: '#123456' }),
    ownCode: 'branding_exists',
  },
  'GET /v2/orchestrators/branding': {
    expect: refused(),
    query: (o) => `clientId=${o.linkedClientId}`,
  },
  'PATCH /v2/orchestrators/branding': {
    expect: refused(),
    body: (o) => ({ clientId: o.linkedClientId, logoPath: '/branding/b.png' }),
  },
  'DELETE /v2/orchestrators/branding': {
    expect: refused(),
    query: (o) => `clientId=${o.linkedClientId}`,
  },
  // B's endpoints refuse on loopback at once: B's test sends reach only them, never A's.
  'POST /v2/orchestrators/webhooks': {
    expect: own,
    body: () => ({ url: `http://127.0.0.1:1/b/${next()}` }),
  },
  'GET /v2/orchestrators/webhooks': { expect: own },
  'DELETE /v2/orchestrators/webhooks/:id': { expect: refused() },
  'PATCH /v2/orchestrators/webhooks/:id': { expect: refused() },
  'POST /v2/orchestrators/webhooks/test': {
    expect: own,
    body: () => ({ eventType: 'client_id.linked' }),
  },

  'POST /v2/orchestrators/client-id-link-intents': {
    expect: own,
    body: () => ({ clientIdName: `B's invitation ${next()}` }),
  },
  // A link intent's token is a bearer capability, like a link's: whoever the platform sent the
  // URL to may read and complete it (with a client ID of their own account). Named here with A's
  // link token, which no intent has.
  'GET /v1/client-id-links/intents/:token': { expect: { kind: 'public' } },
  'POST /v1/client-id-links/intents/:token': { expect: { kind: 'public' } },
  'PUT /v1/client-id-links/:clientIdId/kyt': {
    expect: refused(),
    body: () => ({ providers: [{ provider: 'hypernative' }] }),
  },

  'GET /v2/payee-destination/signing-data': {
    expect: own,
    query: (_o, caller) =>
      `walletAddress=${caller.wallet}&action=add&tokenAddress=${USDC_BASE}&chainId=8453`,
  },
  'POST /v2/payee-destination': {
    expect: refused('invalid_nonce'),
    body: (o) => o.add,
  },
  'GET /v2/payee-destination': {
    expect: own,
    query: (_o, caller) => `walletAddress=${caller.wallet}`,
  },
  'GET /v2/payee-destination/:destinationId': { expect: refused() },
  // The reference API answers 400 for a destination it does not find.
  'DELETE /v2/payee-destination/:destinationId': {
    expect: refused('unknown_destination'),
    body: (o) => o.deactivate,
  },

  // Naming A's wallet (the one of A's destination, `wallet@eip155:…`): a session sets only its
  // own wallet's destination.
  'POST /v1/payee-destination': {
    expect: refused(),
    body: (o) => ({ walletAddress: walletOf(o), tokenAddress: USDC_BASE, chainId: 8453 }),
  },
  'PUT /v1/payee-destination': {
    expect: refused(),
    body: (o) => ({ walletAddress: walletOf(o), tokenAddress: USDC_BASE, chainId: 8453 }),
  },
  'GET /v1/payee-destination': { expect: own },
  'GET /v1/payee-destination/payout-lookup': {
    expect: { kind: 'public' },
    query: (_o, caller) => `walletAddress=${caller.wallet}`,
  },
  'GET /v1/payee-destination/lookup': {
    expect: refused(),
    query: (o) => `destinationId=${encodeURIComponent(o.destinationId)}`,
  },
  'PATCH /v1/payee-destination/deactivate': {
    expect: refused(),
    body: (o) => ({ destinationId: o.destinationId }),
  },

  // An occurrence of A's recurring request in B's account: as unknown to B as a missing one.
  'POST /v2/request': {
    expect: refused(),
    body: (o, caller) => ({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: caller.wallet,
      originalRequestId: o.recurringRequestId,
    }),
  },
  'GET /v2/request': { expect: own, query: (_o, caller) => `walletAddress=${caller.wallet}` },
  'GET /v2/request/:requestId': { expect: refused() },
  // A journey is its request's account's: B names A's request, or A's journey, and learns nothing.
  'POST /v2/journey': { expect: refused(), body: (o) => ({ requestId: o.requestId }) },
  'POST /v2/journey/:queryId': {
    expect: refused(),
    body: () => ({ status: 'received', amount: '1', processedAt: '2026-11-22T12:00:00Z' }),
  },
  'GET /v2/journey/:journeyId': { expect: refused() },
  'PATCH /v2/request/:requestId': {
    expect: refused(),
    body: () => ({ isRecurrenceStopped: true }),
  },
  'GET /v2/request/:requestId/pay': { expect: refused() },
  'GET /v2/request/:requestId/routes': {
    expect: refused(),
    query: (_o, caller) => `wallet=${caller.wallet}`,
  },
  // Removed in 0.31.0: the same 410 to anyone, naming /pay; nothing of A's is read.
  'POST /v2/request/payment-intents/:paymentIntentId': {
    expect: { kind: 'public' },
    body: () => ({ signedPaymentIntent: { signature: '0x00', nonce: '1', deadline: '1' } }),
  },

  // v1: A's requests by payment reference, as unknown to B as v2's by id.
  'POST /v1/request': {
    expect: own,
    body: (_o, caller) => ({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: caller.wallet,
    }),
  },
  'GET /v1/request/:paymentReference': { expect: refused() },
  'PATCH /v1/request/:paymentReference/stop-recurrence': { expect: refused() },
  'GET /v1/request/:paymentReference/pay': { expect: refused() },
  'GET /v1/request/:paymentReference/routes': {
    expect: refused(),
    query: (_o, caller) => `wallet=${caller.wallet}`,
  },
  'POST /v1/pay': {
    expect: own,
    body: (_o, caller) => ({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: caller.wallet,
    }),
  },

  'POST /v2/payouts': {
    expect: own,
    body: (_o, caller) => ({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: caller.wallet,
    }),
  },
  'POST /v2/payouts/recurring/:id': {
    expect: refused(),
    body: (o) => ({ permitSignature: o.recurringSignature }),
  },
  'GET /v2/payouts/recurring/:id': { expect: refused() },
  'PATCH /v2/payouts/recurring/:id': { expect: refused(), body: () => ({ action: 'cancel' }) },
  // The pay page's routes by pay token: an account's credentials reach its own schedules only.
  'GET /v2/payouts/recurring/token/:token': { expect: refused() },
  'POST /v2/payouts/recurring/token/:token': {
    expect: refused(),
    body: (o) => ({ permitSignature: o.recurringSignature }),
  },
  // A's own call finds the schedule and goes on to read the allowance: this app has no RPC.
  'GET /v2/payouts/recurring/token/:token/approval': {
    expect: refused(),
    ownCode: 'chain_unavailable',
  },
  // Paying A's requests in B's batch: they are as unknown to B as missing ones.
  'POST /v2/payouts/batch': {
    expect: refused(),
    body: (o) => ({ requestIds: [o.requestId] }),
  },

  // Commerce payments: B makes its own; A's are as unknown to B as missing ones. A's own calls
  // reach the rules of A's payment, which is not authorized (this app has no RPC to send on).
  'POST /v2/commerce-payments/authorize/calldata': {
    expect: own,
    body: (_o, caller) => ({
      merchantId: `m-${next()}`,
      merchantAddress: caller.wallet,
      amount: '1',
      paymentCurrency: 'USDC-base',
    }),
  },
  'GET /v2/commerce-payments/:requestId/status': { expect: refused() },
  'POST /v2/commerce-payments/:requestId/authorize': {
    expect: refused(),
    body: () => ({}),
    ownCode: 'chain_unavailable',
  },
  'POST /v2/commerce-payments/:requestId/capture/calldata': {
    expect: refused(),
    body: () => ({ captureAmount: '1' }),
    ownCode: 'commerce_not_authorized',
  },
  'POST /v2/commerce-payments/:requestId/capture': {
    expect: refused(),
    body: () => ({ captureAmount: '1' }),
    ownCode: 'commerce_not_authorized',
  },
  'POST /v2/commerce-payments/:requestId/void/calldata': {
    expect: refused(),
    ownCode: 'commerce_not_authorized',
  },
  'POST /v2/commerce-payments/:requestId/void': {
    expect: refused(),
    body: () => ({}),
    ownCode: 'commerce_not_authorized',
  },
  'POST /v2/commerce-payments/:requestId/refund/calldata': {
    expect: refused(),
    body: () => ({ refundAmount: '1' }),
    ownCode: 'commerce_not_captured',
  },
  // A's own refund with the server's shared operator key, unsigned: never sent (F4).
  'POST /v2/commerce-payments/:requestId/refund': {
    expect: refused(),
    body: () => ({ refundAmount: '1' }),
    ownCode: 'commerce_refund_unfunded',
  },
  // The pay page's routes by pay token: an account's credentials reach its own payments only.
  // A's own calls find the payment: no wallet named (400), no RPC to read the receipt on.
  'GET /v2/commerce-payments/token/:payToken': { expect: refused() },
  ...payerProbes('/v2/payer'),
  ...payerProbes('/v1/payer'),
  // Ours: erasure. B's key finds no payer of A's.
  'DELETE /v2/payer/:clientUserId': { expect: refused() },
  'GET /v2/commerce-payments/token/:payToken/authorize': {
    expect: refused(),
    ownCode: 'validation_failed',
  },
  'GET /v2/commerce-payments/token/:payToken/reclaim': {
    expect: refused(),
    ownCode: 'validation_failed',
  },
  'POST /v2/commerce-payments/token/:payToken/authorization': {
    expect: refused(),
    body: () => ({ txHash: `0x${'11'.repeat(32)}` }),
    ownCode: 'chain_unavailable',
  },

  // A's destination in B's link: not one of B's (an orchestrator's pair is held to its bound one).
  'POST /v2/secure-payments': {
    expect: refused('unknown_destination'),
    body: (o, caller) => ({
      requests: [{ destinationId: o.destinationId, amount: '1' }],
      accessPolicy: { allowedPayerAddresses: [caller.wallet] },
    }),
    as: 'apiKey',
  },
  // The plan of B's own payment: it names nothing of A's (the orchestrator's configs need a
  // pair, which auth refuses for a client ID not linked to the key).
  'POST /v2/secure-payments/fees/preview': {
    expect: own,
    body: () => ({ amount: '100', currency: 'USDC-base', flow: 'get_paid' }),
  },
  // The lookup of one request's link: another account's is as unknown as a missing one.
  'GET /v2/secure-payments': { expect: refused(), query: (o) => `requestId=${o.requestId}` },
  'POST /v2/secure-payments/payouts': {
    expect: own,
    body: (_o, caller) => ({
      recipient: caller.wallet,
      creatorWalletAddress: caller.wallet,
      network: 'base',
      currency: 'USDC-base',
      amount: '1',
    }),
  },
  // A's payout links in B's batch: as unknown as missing ones (the reference answers 400).
  'POST /v2/secure-payments/batch-payouts': {
    expect: refused('unknown_payout_link'),
    body: (o) => ({ tokens: o.payoutTokens }),
    as: 'apiKey',
  },
  // A's payout links in B's multicall: named as another account's, never described.
  'POST /v2/secure-payments/multicall-payouts': {
    expect: refused('multicall_validation_failed'),
    body: (o) => ({ childTokens: o.payoutTokens }),
    as: 'apiKey',
  },
  'GET /v2/secure-payments/multicall-payouts/:token': { expect: refused() },
  'GET /v2/secure-payments/:token': { expect: refused() },
  'GET /v2/secure-payments/:token/pay': { expect: refused() },
  'POST /v2/secure-payments/:token/calldata': { expect: refused(), body: () => ({}) },
  // B refreshing a step of A's link would read A's route; A's own call names no step handed out.
  'POST /v2/secure-payments/:token/refresh-step-transaction': {
    expect: refused(),
    body: () => ({
      step: {
        id: 'a-step',
        type: 'lifi',
        tool: 'across',
        action: { toChainId: 8453, toAddress: `0x${'11'.repeat(20)}` },
      },
    }),
    ownCode: 'crosschain_route_gone',
  },
  // Relaying to the node only for A's link; A's link is an EVM one, which the relay refuses.
  'POST /v2/secure-payments/:token/tron/broadcast': {
    expect: refused(),
    body: () => ({
      signedTransaction: {
        raw_data_hex: '7b7d',
        signature: ['00'.repeat(65)],
        raw_data: { contract: [{}] },
      },
    }),
    ownCode: 'tron_link_required',
  },
  // B recording a payment of A's link would lock it (a Safe transaction) or mark it listening.
  'POST /v2/secure-payments/:token/intent': {
    expect: refused(),
    body: () => ({ txHash: `0x${'ab'.repeat(32)}`, chain: 'BASE', token: 'USDC' }),
  },
  // A's link is a single one: A's own receipt for it is refused as no multicall.
  'POST /v2/secure-payments/:token/multicall-intent': {
    expect: refused(),
    body: () => ({
      chain: 'BASE',
      transactionIndices: [{ childPosition: 0, transactionIndex: 0 }],
    }),
    ownCode: 'validation_failed',
  },
  // Telemetry about A's link: B's report would reach A's webhooks.
  'POST /v2/secure-payments/:token/user-events': {
    expect: refused(),
    body: () => ({ userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z' }),
  },
  'POST /v2/secure-payments/:token/events': {
    expect: refused(),
    body: () => ({ userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z' }),
  },

  // No change is ever pending (changes take effect at once): A's own call answers the same.
  'PATCH /v1/payee-destination/wallet-change/cancel': {
    expect: refused(),
    body: () => ({ changeRequestId: 'wcr_0000000000000000' }),
    ownCode: 'wallet_change_not_found',
  },
  'GET /v2/payments': { expect: own, query: (o) => `requestId=${o.requestId}` },
  // Filters the caller's own payments by wallet: B naming any wallet reads only B's.
  // The signed-in account's own requests, whatever B asks.
  'GET /v2/dashboard/requests/export': { expect: own, query: () => 'flow=incoming' },
  'GET /v2/transaction-history': {
    expect: own,
    query: (_o, caller) => `address=${caller.wallet}`,
  },

  'GET /v1/auth/session': { expect: own },

  'POST /v2/client-ids': {
    expect: own,
    body: () => ({ label: 'B', allowedDomains: ['https://b.example'] }),
  },
  'GET /v2/client-ids': { expect: own },
  'GET /v2/client-ids/:id': { expect: refused() },
  'PUT /v2/client-ids/:id': { expect: refused(), body: () => ({ label: 'taken over' }) },
  'DELETE /v2/client-ids/:id': { expect: refused() },
  // Unlinking the orchestrator of A's client ID.
  'DELETE /v2/client-ids/:id/orchestrator': { expect: refused() },
  'DELETE /v1/client-ids/:id/orchestrator': { expect: refused() },
  'POST /v1/client-ids': { expect: own, body: () => ({ label: 'B', allowedDomains: [] }) },
  'GET /v1/client-ids': { expect: own },
  'GET /v1/client-ids/:id': { expect: refused() },
  'PUT /v1/client-ids/:id': { expect: refused(), body: () => ({ label: 'taken over' }) },
  'DELETE /v1/client-ids/:id': { expect: refused() },

  'POST /v1/api-keys': { expect: own, body: () => ({ label: 'B' }) },
  'GET /v1/api-keys': { expect: own },
  'DELETE /v1/api-keys/:id': { expect: refused() },

  // Naming A's client ID (Auth API 0.14.0's `clientId`): B's session or key finds no such
  // client ID, B's client ID is not the one named.
  'POST /v1/webhook': {
    expect: refused(),
    as: 'session',
    body: (o) => ({ url: `https://hooks.b.example/payreq/${next()}`, clientId: o.webhookClientId }),
  },
  'GET /v1/webhook': { expect: own },
  'PUT /v1/webhook/:id': { expect: refused(), as: 'apiKey', body: () => ({ active: false }) },
  'PATCH /v1/webhook/:id': {
    expect: refused(),
    as: 'apiKey',
    body: () => ({ retryPolicy: { backoffSeconds: 60 } }),
  },
  'DELETE /v1/webhook/:id': { expect: refused(), as: 'apiKey' },
  'POST /v1/webhook/test': {
    expect: refused(),
    as: 'session',
    body: (o) => ({ eventType: 'payment.confirmed', clientId: o.webhookClientId }),
  },
  'GET /v1/webhook/:id/deliveries': { expect: refused(), as: 'apiKey' },
  'POST /v1/webhook/:id/deliveries/:deliveryId/redeliver': { expect: refused(), as: 'apiKey' },
};

/**
 * `/v1|v2/payer`: A's payer by its `clientUserId`. B submitting the same `clientUserId` makes
 * B's own payer (a payer belongs to the account that created it).
 */
function payerProbes(prefix: string): Record<string, Probe> {
  const bank = {
    bankName: 'Chase',
    accountName: 'B Holder',
    accountNumber: '123456789',
    beneficiaryType: 'individual',
    currency: 'usd',
    addressLine1: '1 Main St',
    city: 'Springfield',
    country: 'US',
    dateOfBirth: '1990-01-01',
    postalCode: '12345',
  };
  return {
    [`POST ${prefix}`]: {
      expect: own,
      body: (o) => ({
        clientUserId: o.clientUserId,
        email: 'b.holder@example.com',
        firstName: 'B',
        lastName: 'Holder',
        beneficiaryType: 'individual',
        dateOfBirth: '1990-01-01',
        addressLine1: '1 Main St',
        city: 'Springfield',
        state: 'IL',
        postcode: '12345',
        country: 'US',
        nationality: 'US',
        phone: '+15555550100',
        ssn: '000-00-0000',
      }),
    },
    [`GET ${prefix}/:clientUserId`]: { expect: refused() },
    [`PATCH ${prefix}/:clientUserId`]: {
      expect: refused(),
      body: () => ({ agreementCompleted: true }),
    },
    [`POST ${prefix}/:clientUserId/payment-details`]: { expect: refused(), body: () => bank },
    [`GET ${prefix}/:clientUserId/payment-details`]: {
      expect: refused(),
      query: (o) => `paymentDetailsId=${o.paymentDetailsId}`,
    },
  };
}
