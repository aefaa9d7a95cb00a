import { next, own, type Probe, refused } from './tenancy-probe-kit.ts';
import { ACCOUNT_PROBES } from './tenancy-probes-accounts.ts';

/**
 * For every authenticated route, what B must get when it names A's objects (the matrix:
 * test/tenancy-probe-kit.ts): requests, payouts, commerce, payers, links, webhooks here, the
 * account's own objects in tenancy-probes-accounts.ts.
 */
export const PROBES: Record<string, Probe> = {
  ...ACCOUNT_PROBES,
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
  'GET /v2/payouts/recurring': { expect: own },
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
  // A's request id names no payment of B's: B's export holds the header only.
  'GET /v2/dashboard/payments/export': { expect: own, query: (o) => `requestId=${o.requestId}` },
  'GET /v2/dashboard/deliveries': { expect: own, query: (o) => `requestId=${o.requestId}` },
  'GET /v2/dashboard/summary': { expect: own },
  'GET /v2/dashboard/links/:token': { expect: refused() },
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
