import { eq, inArray } from 'drizzle-orm';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/auth/api-keys.ts';
import { createClientId } from '../../src/auth/client-ids.ts';
import {
  apiKeys,
  clientIds,
  destinationNonces,
  orchestratorClientLinks,
  payeeDestinations,
  payments,
  recurringExecutions,
  recurringPayouts,
  requestSchedules,
  requests,
  securePayments,
  sessions,
  webhookDeliveries,
  webhooks,
} from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { searchColumnsOf } from '../../src/payments/records.ts';
import type { RouteEntry } from '../../src/server/route-table.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { insertSchedule, signPermit } from '../recurring.ts';
import { challenge, verify } from '../sign-in.ts';

/**
 * Tenant isolation, for every route the app serves. Two tenants, A and B, each hold every kind
 * of credential: an API key, a client ID, a wallet session, an orchestrator key, and that
 * orchestrator paired with a client ID linked to it. For each route, B's credentials are sent
 * with A's objects (in the path, query or body) and must be refused (404 or 403, or the one
 * documented 400/409 where the reference API answers so) without a byte of A's data and
 * without changing any row of A's; then A's own call, with the same objects, must succeed, so
 * every refusal above is the ownership check and not a broken fixture.
 *
 * The matrix is generated from the route table: a route this file has no entry for fails the
 * test until one is added below.
 */

const KEY_A: Hex = '0x59c6995e998f97a5a0044966f0945389dc9c86dae88c7a8412f4603b6b78690d';
const KEY_B: Hex = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAYMENT_TX = `0x${'ab'.repeat(32)}`;

const KINDS = [
  'apiKey',
  'clientId',
  'session',
  'orchestratorKey',
  'orchestratorPair',
  /** B's orchestrator key with A's client ID, which is not linked to it. */
  'foreignPair',
] as const;
type Kind = (typeof KINDS)[number];

interface Tenant {
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
interface Objects {
  readonly token: string;
  readonly requestId: string;
  /** The original of A's recurring request (the only kind PATCH /v2/request changes). */
  readonly recurringRequestId: string;
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

interface Probe {
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
const next = () => {
  unique += 1;
  return unique;
};

/** Every authenticated route, by `METHOD url`. */
const PROBES: Record<string, Probe> = {
  'GET /v2/currencies': { expect: { kind: 'public' }, query: () => 'id=USDC-base' },
  'GET /v2/currencies/:currencyId/conversion-routes': { expect: { kind: 'public' } },

  'GET /v2/orchestrators/client-ids': { expect: own },
  // Linking is by client ID value, as the reference API does; a client ID another
  // orchestrator holds stays with it.
  'POST /v2/orchestrators/client-ids': {
    expect: refused('client_id_linked_elsewhere'),
    body: (o) => ({ clientId: o.linkedClientId }),
  },
  'DELETE /v2/orchestrators/client-ids/:clientId': { expect: refused() },

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

  'POST /v1/payee-destination': {
    expect: own,
    body: () => ({ tokenAddress: USDC_BASE, chainId: 8453 }),
  },
  'PUT /v1/payee-destination': {
    expect: own,
    body: () => ({ tokenAddress: USDC_BASE, chainId: 8453 }),
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
  'PATCH /v2/request/:requestId': {
    expect: refused(),
    body: () => ({ isRecurrenceStopped: true }),
  },
  'GET /v2/request/:requestId/pay': { expect: refused() },
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

  // A's destination in B's link: not one of B's (an orchestrator's pair is held to its bound one).
  'POST /v2/secure-payments': {
    expect: refused('unknown_destination'),
    body: (o) => ({ requests: [{ destinationId: o.destinationId, amount: '1' }] }),
    as: 'apiKey',
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
  // Telemetry about A's link: B's report would reach A's webhooks.
  'POST /v2/secure-payments/:token/user-events': {
    expect: refused(),
    body: () => ({ userEvent: 'wallet_connected', occurredAt: '2026-11-22T12:00:00Z' }),
  },

  'GET /v2/payments': { expect: own, query: (o) => `requestId=${o.requestId}` },

  'GET /v1/auth/session': { expect: own },

  'POST /v2/client-ids': {
    expect: own,
    body: () => ({ label: 'B', allowedDomains: ['https://b.example'] }),
  },
  'GET /v2/client-ids': { expect: own },
  'GET /v2/client-ids/:id': { expect: refused() },
  'PUT /v2/client-ids/:id': { expect: refused(), body: () => ({ label: 'taken over' }) },
  'DELETE /v2/client-ids/:id': { expect: refused() },
  'POST /v1/client-ids': { expect: own, body: () => ({ label: 'B', allowedDomains: [] }) },
  'GET /v1/client-ids': { expect: own },
  'GET /v1/client-ids/:id': { expect: refused() },
  'PUT /v1/client-ids/:id': { expect: refused(), body: () => ({ label: 'taken over' }) },
  'DELETE /v1/client-ids/:id': { expect: refused() },

  'POST /v1/api-keys': { expect: own, body: () => ({ label: 'B' }) },
  'GET /v1/api-keys': { expect: own },
  'DELETE /v1/api-keys/:id': { expect: refused() },

  'POST /v1/webhook': {
    expect: own,
    body: () => ({ url: `https://hooks.b.example/payreq/${next()}` }),
  },
  'GET /v1/webhook': { expect: own },
  'PUT /v1/webhook/:id': { expect: refused(), as: 'apiKey', body: () => ({ active: false }) },
  'DELETE /v1/webhook/:id': { expect: refused(), as: 'apiKey' },
  'POST /v1/webhook/test': { expect: own, body: () => ({ eventType: 'payment.confirmed' }) },
  'GET /v1/webhook/:id/deliveries': { expect: refused(), as: 'apiKey' },
  'POST /v1/webhook/:id/deliveries/:deliveryId/redeliver': { expect: refused(), as: 'apiKey' },
};

let t: TestApp;
let a: Tenant;
let b: Tenant;
let shared: Objects;

async function walletSession(key: Hex): Promise<{ token: string; accountId: string }> {
  const account = privateKeyToAccount(key);
  const issued = await challenge(t, account.address);
  const res = await verify(t, {
    challengeId: issued.challengeId,
    nonce: issued.nonce,
    message: issued.message,
    signature: await account.signMessage({ message: issued.message }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return { token: res.json().sessionToken, accountId: res.json().accountId };
}

async function tenant(name: string, walletKey: Hex): Promise<Tenant> {
  const wallet = privateKeyToAccount(walletKey).address;
  const session = await walletSession(walletKey);
  const accountId = session.accountId;
  const key = await issueApiKey(t.db, accountId, `${name} key`);
  const client = await createClientId(t.db, {
    accountId,
    label: `${name} backend`,
    allowedDomains: [],
  });
  // The pair's client ID pays the tenant's own destination, as the paired flow requires.
  const destination = await activateDestination(
    t.db,
    t.clock,
    accountId,
    resolveTarget(t.chains, { walletAddress: wallet, chainId: 8453, tokenAddress: USDC_BASE }),
  );
  const paired = await createClientId(t.db, {
    accountId,
    label: `${name} platform`,
    allowedDomains: [],
    payeeDestinationId: destination.destinationId,
  });
  const orchestrator = await createOrchestrator(t.db, `${name} platform`);
  await linkClientId(t.db, orchestrator.orchestratorId, paired.clientId);
  return {
    name,
    accountId,
    wallet,
    walletKey,
    orchestratorId: orchestrator.orchestratorId,
    clientId: client.clientId,
    headers: {
      apiKey: { 'x-api-key': key.apiKey },
      clientId: { 'x-client-id': client.clientId },
      session: { authorization: `Bearer ${session.token}` },
      orchestratorKey: { 'x-orchestrator-key': orchestrator.orchestratorKey },
      orchestratorPair: {
        'x-orchestrator-key': orchestrator.orchestratorKey,
        'x-client-id': paired.clientId,
      },
      foreignPair: {},
    },
  };
}

async function call(
  method: string,
  url: string,
  headers: Record<string, string>,
  payload?: object,
) {
  return t.app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(payload !== undefined && { payload }),
  });
}

/** Signing data fetched by A and signed by A's wallet, as a wallet's front end would. */
async function signedNonce(action: 'add' | 'deactivate') {
  const res = await call(
    'GET',
    `/v2/payee-destination/signing-data?walletAddress=${a.wallet}&action=${action}&tokenAddress=${USDC_BASE}&chainId=8453`,
    a.headers.apiKey,
  );
  expect(res.statusCode, res.body).toBe(200);
  const { typedData, nonce } = res.json();
  const signature = await privateKeyToAccount(a.walletKey).signTypedData({
    ...typedData,
    message: {
      ...typedData.message,
      chainId: BigInt(typedData.message.chainId),
      expiresAt: BigInt(typedData.message.expiresAt),
    },
  });
  return { nonce: nonce as string, signature };
}

/** A fresh set of A's objects, each made the way A would make it. */
async function makeObjects(): Promise<Objects> {
  const n = next();
  const destination = await activateDestination(
    t.db,
    t.clock,
    a.accountId,
    resolveTarget(t.chains, { walletAddress: a.wallet, chainId: 8453, tokenAddress: USDC_BASE }),
  );
  const link = await call('POST', '/v2/secure-payments', a.headers.apiKey, {
    requests: [{ destinationId: destination.destinationId, amount: '5' }],
  });
  expect(link.statusCode, link.body).toBe(201);
  const recurring = await call('POST', '/v2/request', a.headers.apiKey, {
    amount: '7',
    invoiceCurrency: 'USDC-base',
    paymentCurrency: 'USDC-base',
    payee: a.wallet,
    recurrence: { startDate: '2026-12-01T00:00:00Z', frequency: 'MONTHLY' },
  });
  expect(recurring.statusCode, recurring.body).toBe(201);
  const payout = async (amount: string): Promise<string> => {
    const made = await call('POST', '/v2/secure-payments/payouts', a.headers.apiKey, {
      recipient: b.wallet,
      creatorWalletAddress: a.wallet,
      network: 'base',
      currency: 'USDC-base',
      amount,
    });
    expect(made.statusCode, made.body).toBe(201);
    return made.json().token;
  };
  const payoutTokens = [await payout('1'), await payout('2')];
  const children = [await payout('3'), await payout('4')];
  const multicall = await call('POST', '/v2/secure-payments/multicall-payouts', a.headers.apiKey, {
    childTokens: children,
  });
  expect(multicall.statusCode, multicall.body).toBe(201);
  // Each set's endpoint under a client ID of its own: a client ID holds at most 20.
  const hooks = await createClientId(t.db, {
    accountId: a.accountId,
    label: `A hooks ${n}`,
    allowedDomains: [],
  });
  const asHooks = { 'x-client-id': hooks.clientId };
  const webhookUrl = `https://hooks.a.example/payreq/${n}`;
  const webhook = await call('POST', '/v1/webhook', asHooks, { url: webhookUrl });
  expect(webhook.statusCode, webhook.body).toBe(201);
  const sent = await call('POST', '/v1/webhook/test', asHooks, {
    eventType: 'payment.confirmed',
  });
  expect(sent.statusCode, sent.body).toBe(200);
  const [delivery] = await t.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhook.json().id));
  if (!delivery) throw new Error('no test delivery');
  const clientIdLabel = `A secret label ${n}`;
  const client = await createClientId(t.db, {
    accountId: a.accountId,
    label: clientIdLabel,
    allowedDomains: ['https://a.example'],
  });
  const key = await issueApiKey(t.db, a.accountId, `A key ${n}`);
  const linked = await createClientId(t.db, {
    accountId: a.accountId,
    label: `A linked ${n}`,
    allowedDomains: [],
    payeeDestinationId: destination.destinationId,
  });
  await linkClientId(t.db, a.orchestratorId, linked.clientId);
  const recurringPayout = await insertSchedule(t.db, t.chains, {
    accountId: a.accountId,
    payerKey: a.walletKey,
    payee: b.wallet,
    startDate: new Date(t.clock.now().getTime() + 86_400_000),
  });
  return {
    token: link.json().token,
    payoutTokens,
    multicallToken: multicall.json().token,
    requestId: link.json().requestIds[0],
    recurringRequestId: recurring.json().requestId,
    destinationId: destination.destinationId,
    webhookId: webhook.json().id,
    webhookUrl,
    webhookClientId: hooks.clientId,
    deliveryId: delivery.id,
    clientIdRowId: client.id,
    clientIdLabel,
    apiKeyId: key.id,
    linkedClientId: linked.clientId,
    add: await signedNonce('add'),
    deactivate: await signedNonce('deactivate'),
    recurringPayoutId: recurringPayout.id,
    recurringSignature: await signPermit(recurringPayout, a.walletKey),
    recurringPayToken: recurringPayout.payToken,
  };
}

/** Values that would give A's data away if they appeared in an answer to B. */
function secretsOf(o: Objects): string[] {
  return [
    a.accountId,
    a.clientId,
    o.token,
    ...o.payoutTokens,
    o.multicallToken,
    o.requestId,
    o.recurringRequestId,
    o.destinationId,
    o.webhookId,
    o.webhookUrl,
    o.webhookClientId,
    o.deliveryId,
    o.clientIdRowId,
    o.clientIdLabel,
    o.apiKeyId,
    o.linkedClientId,
    o.add.nonce,
    o.deactivate.nonce,
    o.recurringPayoutId,
    o.recurringPayToken,
    PAYMENT_TX,
  ];
}

/** Every row of A's, except the usage timestamps A's own calls move. */
async function snapshotOfA(): Promise<unknown> {
  const account = a.accountId;
  const hooks = await t.db.select().from(webhooks).where(eq(webhooks.accountId, account));
  const clients = await t.db.select().from(clientIds).where(eq(clientIds.accountId, account));
  const withoutUsage = <T extends { lastUsedAt?: unknown }>(rows: T[]) =>
    rows.map(({ lastUsedAt: _ignored, ...rest }) => rest);
  return {
    // In id order: without one, the order follows whichever plan the statistics of the moment
    // pick (a list index or the table), and two equal snapshots could compare unequal.
    links: await t.db
      .select()
      .from(securePayments)
      .where(eq(securePayments.accountId, account))
      .orderBy(securePayments.id),
    recurringPayouts: await t.db
      .select()
      .from(recurringPayouts)
      .where(eq(recurringPayouts.accountId, account))
      .orderBy(recurringPayouts.id),
    recurringExecutions: await t.db
      .select({ execution: recurringExecutions })
      .from(recurringExecutions)
      .innerJoin(recurringPayouts, eq(recurringPayouts.id, recurringExecutions.recurringPayoutId))
      .where(eq(recurringPayouts.accountId, account))
      .orderBy(recurringExecutions.id),
    requests: await t.db
      .select()
      .from(requests)
      .where(eq(requests.accountId, account))
      .orderBy(requests.id),
    schedules: await t.db
      .select()
      .from(requestSchedules)
      .where(eq(requestSchedules.accountId, account))
      .orderBy(requestSchedules.requestRowId),
    payments: await t.db
      .select()
      .from(payments)
      .where(eq(payments.accountId, account))
      .orderBy(payments.id),
    destinations: await t.db
      .select()
      .from(payeeDestinations)
      .where(eq(payeeDestinations.accountId, account)),
    nonces: await t.db
      .select()
      .from(destinationNonces)
      .where(eq(destinationNonces.accountId, account)),
    webhooks: hooks,
    deliveries:
      hooks.length === 0
        ? []
        : await t.db
            .select()
            .from(webhookDeliveries)
            .where(
              inArray(
                webhookDeliveries.webhookId,
                hooks.map((hook) => hook.id),
              ),
            )
            .orderBy(webhookDeliveries.id),
    clientIds: withoutUsage(clients),
    links2: await t.db
      .select()
      .from(orchestratorClientLinks)
      .where(
        inArray(
          orchestratorClientLinks.clientIdId,
          clients.map((client) => client.id),
        ),
      ),
    apiKeys: withoutUsage(await t.db.select().from(apiKeys).where(eq(apiKeys.accountId, account))),
    sessions: (await t.db.select().from(sessions).where(eq(sessions.accountId, account))).map(
      ({ lastSeenAt: _ignored, ...rest }) => rest,
    ),
  };
}

function pathFor(route: RouteEntry, o: Objects): string {
  return route.url.replace(/:([A-Za-z]+)/g, (_match, param: string) => {
    const value = (() => {
      switch (param) {
        case 'id':
          if (route.url.startsWith('/v1/webhook')) return o.webhookId;
          if (route.url.startsWith('/v2/payouts/recurring/')) return o.recurringPayoutId;
          if (route.url.includes('/client-ids')) return o.clientIdRowId;
          if (route.url.startsWith('/v1/api-keys')) return o.apiKeyId;
          throw new Error(`${route.url}: which object is :id?`);
        case 'clientId':
          return o.linkedClientId;
        case 'currencyId':
          return 'USDC-base';
        case 'token':
          if (route.url.startsWith('/v2/payouts/recurring/token/')) return o.recurringPayToken;
          return route.url.includes('/multicall-payouts/') ? o.multicallToken : o.token;
        case 'requestId':
          return route.method === 'PATCH' ? o.recurringRequestId : o.requestId;
        case 'destinationId':
          return o.destinationId;
        case 'deliveryId':
          return o.deliveryId;
        default:
          throw new Error(`${route.url}: no fixture for path parameter :${param}`);
      }
    })();
    return encodeURIComponent(value);
  });
}

function urlFor(route: RouteEntry, probe: Probe, o: Objects, caller: Tenant): string {
  const query = probe.query?.(o, caller);
  const path = pathFor(route, o);
  return query ? `${path}?${query}` : path;
}

beforeAll(async () => {
  t = await createTestApp();
  a = await tenant('A', KEY_A);
  b = await tenant('B', KEY_B);
  b.headers.foreignPair['x-orchestrator-key'] =
    b.headers.orchestratorKey['x-orchestrator-key'] ?? '';
  b.headers.foreignPair['x-client-id'] = a.clientId;
  shared = await makeObjects();
  // A recorded payment, for the payment search.
  const [request] = await t.db
    .select()
    .from(requests)
    .where(eq(requests.requestId, shared.requestId));
  if (!request) throw new Error('request missing');
  await t.db.insert(payments).values({
    network: 'base',
    blockHash: `0x${'00'.repeat(32)}`,
    tokenAddress: USDC_BASE,
    accountId: a.accountId,
    requestRowId: request.id,
    ...searchColumnsOf(request),
    txHash: PAYMENT_TX,
    logIndex: 0,
    blockNumber: 100n,
    amount: 5_000_000n,
    feeAmount: 0n,
    payee: a.wallet,
    payerAddress: b.wallet,
    paymentReference: request.paymentReference,
    timestamp: t.clock.now(),
  });
});
afterAll(() => t.close());

describe('tenant isolation', () => {
  it('has a probe for every authenticated route, and every probe names a route', () => {
    const routes = t.routes.filter((r) => !r.hidden && r.auth !== undefined);
    const keys = routes.map((r) => `${r.method} ${r.url}`);
    expect(
      keys.filter((key) => !(key in PROBES)),
      'routes without a probe: add them to PROBES',
    ).toEqual([]);
    expect(Object.keys(PROBES).filter((key) => !keys.includes(key))).toEqual([]);
  });

  const routeKeys = Object.keys(PROBES);
  it.each(routeKeys)(
    '%s: B is refused on A’s objects, learns nothing, changes nothing',
    async (key) => {
      const route = t.routes.find((r) => `${r.method} ${r.url}` === key);
      const probe = PROBES[key];
      if (!route?.auth || !probe) throw new Error(`${key} is not an authenticated route`);
      const mutating = route.method !== 'GET';
      const o = mutating ? await makeObjects() : shared;
      const secrets = secretsOf(o);
      const before = await snapshotOfA();

      let allowedOwn = 0;
      for (const kind of KINDS) {
        const url = urlFor(route, probe, o, b);
        const payload = probe.body?.(o, b);
        const res = await call(route.method, url, b.headers[kind], payload);
        const name = `${key} as B's ${kind} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, name).toBeLessThan(500);
        const accepted = route.auth.includes(kind as never);
        if (!accepted || kind === 'foreignPair') {
          expect([401, 403], name).toContain(res.statusCode);
          continue;
        }
        switch (probe.expect.kind) {
          case 'refused': {
            const allowed = probe.expect.codes ?? [];
            const ok =
              res.statusCode === 403 ||
              res.statusCode === 404 ||
              (allowed.includes(res.json().code) && [400, 409].includes(res.statusCode));
            expect(ok, name).toBe(true);
            break;
          }
          case 'own':
            if (res.statusCode < 300) allowedOwn += 1;
            break;
          case 'public':
            continue; // answers anyone; nothing of A's to hide
        }
        const sent = `${url} ${JSON.stringify(payload ?? {})}`;
        for (const secret of secrets) {
          if (sent.includes(secret) || sent.includes(encodeURIComponent(secret))) continue;
          expect(res.body.includes(secret), `${name} leaked ${secret}`).toBe(false);
        }
      }
      if (probe.expect.kind === 'own') {
        expect(allowedOwn, `${key}: B's own call never succeeded`).toBeGreaterThan(0);
      }
      expect(await snapshotOfA(), `${key}: B changed A's rows`).toEqual(before);

      // The same call as A works: the refusals above were the ownership check.
      if (probe.expect.kind === 'refused') {
        const kind = probe.as ?? (route.auth[0] as Kind);
        const res = await call(
          route.method,
          urlFor(route, probe, o, a),
          a.headers[kind],
          probe.body?.(o, a),
        );
        const name = `${key} as A's ${kind}: ${res.body.slice(0, 300)}`;
        if (probe.ownCode === undefined) expect(res.statusCode, name).toBeLessThan(300);
        else expect(res.json().code, name).toBe(probe.ownCode);
      }
    },
  );
});
