import { eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect } from 'vitest';
import { issueApiKey } from '../src/auth/api-keys.ts';
import { createClientId } from '../src/auth/client-ids.ts';
import { createBranding } from '../src/branding/brandings.ts';
import { payments, requests, webhookDeliveries } from '../src/db/schema.ts';
import { activateDestination } from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import { createFeeConfig } from '../src/fees/fee-configs.ts';
import { linkClientId } from '../src/orchestrators/links.ts';
import { createOrchestrator } from '../src/orchestrators/orchestrators.ts';
import { searchColumnsOf } from '../src/payments/records.ts';
import { startFakeCompliance } from '../src/sandbox/compliance/fake-compliance.ts';
import { startFakeOfframp } from '../src/sandbox/offramp/fake-offramp.ts';
import { createTestApp, type TestApp } from './app.ts';
import { bankBody, kycBody } from './payer-world.ts';
import { insertSchedule, signPermit } from './recurring.ts';
import { challenge, verify } from './sign-in.ts';
import type { Objects, Tenant } from './tenancy-probe-kit.ts';
import { next, USDC_BASE } from './tenancy-probe-kit.ts';

/**
 * The two tenants of the isolation matrix (test/e2e/tenancy.test.ts), each holding every kind of
 * credential, and A's objects, made the way A would make them.
 */

const KEY_A: Hex = '0x59c6995e998f97a5a0044966f0945389dc9c86dae88c7a8412f4603b6b78690d';
/** The server's commerce operator (a development key no tenant holds). */
const COMMERCE_OPERATOR: Hex = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';
const KEY_B: Hex = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
export const PAYMENT_TX = `0x${'ab'.repeat(32)}`;

export let t: TestApp;
export let a: Tenant;
export let b: Tenant;
export let shared: Objects;
let closeCompliance: () => Promise<void> = async () => undefined;

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

export async function call(
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
export async function makeObjects(): Promise<Objects> {
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
  const journey = await call('POST', '/v2/journey', a.headers.apiKey, {
    requestId: link.json().requestIds[0],
  });
  expect(journey.statusCode, journey.body).toBe(201);
  const recurring = await call('POST', '/v2/request', a.headers.apiKey, {
    amount: '7',
    invoiceCurrency: 'USDC-base',
    paymentCurrency: 'USDC-base',
    payee: a.wallet,
    recurrence: { startDate: '2026-12-01T00:00:00Z', frequency: 'MONTHLY' },
  });
  expect(recurring.statusCode, recurring.body).toBe(201);
  const commerce = await call(
    'POST',
    '/v2/commerce-payments/authorize/calldata',
    a.headers.apiKey,
    {
      merchantId: 'a-shop',
      merchantAddress: a.wallet,
      buyerAddress: b.wallet,
      amount: '5',
      paymentCurrency: 'USDC-base',
    },
  );
  expect(commerce.statusCode, commerce.body).toBe(201);
  // A's payer and its bank details (through the fake compliance provider).
  const clientUserId = `a-user-${n}`;
  const payer = await call('POST', '/v2/payer', a.headers.apiKey, kycBody(clientUserId, `9${n}`));
  expect(payer.statusCode, payer.body).toBe(200);
  const details = await call(
    'POST',
    `/v2/payer/${clientUserId}/payment-details`,
    a.headers.apiKey,
    bankBody(`9${n}`),
  );
  expect(details.statusCode, details.body).toBe(201);
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
  expect(sent.statusCode, sent.body).toBe(201);
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
  const feeConfig = await createFeeConfig(t.db, t.clock, a.orchestratorId, {
    clientId: linked.clientId,
    flow: 'incoming',
    feeBearer: 'payer',
    bps: 50,
    evmRecipientAddress: a.wallet,
  });
  await createBranding(t.db, a.orchestratorId, linked.id, { primaryActionColor: '#a1a1a1' });
  // Left inactive: A's orchestrator gets one per set, and holds at most 20 active.
  const orchestratorWebhookUrl = `https://hooks.a.example/orchestrator/${n}`;
  const asOrchestrator = a.headers.orchestratorKey;
  const orchestratorWebhook = await call('POST', '/v2/orchestrators/webhooks', asOrchestrator, {
    url: orchestratorWebhookUrl,
  });
  expect(orchestratorWebhook.statusCode, orchestratorWebhook.body).toBe(201);
  const orchestratorWebhookId: string = orchestratorWebhook.json().webhook.id;
  const off = await call(
    'DELETE',
    `/v2/orchestrators/webhooks/${orchestratorWebhookId}`,
    asOrchestrator,
  );
  expect(off.statusCode, off.body).toBe(200);
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
    journeyId: journey.json().journeyId,
    recurringRequestId: recurring.json().requestId,
    commerceRequestId: commerce.json().requestId,
    clientUserId,
    payerUserId: payer.json().userId,
    paymentDetailsId: details.json().payment_detail.id,
    payerEmail: kycBody(clientUserId, `9${n}`).email,
    commercePayToken: new URL(commerce.json().payUrl).searchParams.get('commerce') ?? '',
    recurringPaymentReference: recurring.json().paymentReference,
    destinationId: destination.destinationId,
    webhookId: webhook.json().id,
    webhookUrl,
    webhookClientId: hooks.clientId,
    deliveryId: delivery.id,
    clientIdRowId: client.id,
    clientIdLabel,
    apiKeyId: key.id,
    linkedClientId: linked.clientId,
    feeConfigId: feeConfig.id,
    linkedClientIdRowId: linked.id,
    orchestratorWebhookId,
    orchestratorWebhookUrl,
    add: await signedNonce('add'),
    deactivate: await signedNonce('deactivate'),
    recurringPayoutId: recurringPayout.id,
    recurringSignature: await signPermit(recurringPayout, a.walletKey),
    recurringPayToken: recurringPayout.payToken,
  };
}

/** Starts the app, makes both tenants and A's shared objects; closes the app after the file. */
export function setupTenancy(): void {
  beforeAll(async () => {
    const compliance = await startFakeCompliance({ webhookSecret: 'tenancy-callback-secret' });
    // The off-ramp, for crypto-to-fiat's /pay (test/e2e/tenancy.test.ts): deposit addresses.
    const offramp = await startFakeOfframp({ webhookSecret: 'tenancy-offramp-secret' });
    closeCompliance = async () => {
      await compliance.close();
      await offramp.close();
    };
    t = await createTestApp({
      env: {
        COMMERCE_OPERATOR_KEY: COMMERCE_OPERATOR,
        COMPLIANCE_URL: compliance.url,
        OFFRAMP_URL: offramp.url,
        OFFRAMP_WEBHOOK_SECRET: 'tenancy-offramp-secret',
      },
    });
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
  afterAll(async () => {
    await t.close();
    await closeCompliance();
  });
}
