import type { Probe } from './tenancy-probe-kit.ts';
import { next, own, refused, USDC_BASE, walletOf } from './tenancy-probe-kit.ts';

/**
 * The tenancy probes of currencies, orchestrators and their links, and payee destinations
 * (test/tenancy-probes.ts has the rest, and what a probe is: test/tenancy-probe-kit.ts).
 */
export const ACCOUNT_PROBES: Record<string, Probe> = {
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
  'GET /v2/dashboard/destinations': { expect: own },
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
};
