import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClientId } from '../../src/auth/client-ids.ts';
import {
  accessRejections,
  screeningResults,
  securePayments,
  webhookDeliveries,
} from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { updateKytPlan } from '../../src/orchestrators/kyt-plans.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import {
  type FakeScreening,
  startFakeScreening,
} from '../../src/sandbox/screening/fake-screening.ts';
import { createCompletionScreener } from '../../src/screening/completion.ts';
import { ACCESS_REJECTED_WINDOW_MS } from '../../src/screening/events.ts';
import {
  PAYER_NOT_ALLOWED_MESSAGE,
  PAYER_SCREENING_REJECTED_MESSAGE,
  PAYER_SCREENING_UNAVAILABLE_MESSAGE,
} from '../../src/screening/gate.ts';
import { createScreeningService } from '../../src/screening/screen.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * Screening of payers, end to end: real HTTP to the fake providers (both shapes), a real
 * database, a local chain the allowed payer pays on, and webhooks delivered over HTTP to a
 * receiver. The allowlist refuses other wallets (one `secure_payment.access_rejected` per ten
 * minutes of the test clock); a sanctioned wallet is refused before calldata and the
 * orchestrator hears `kyt.screening.completed`; a primary provider down falls to the backup,
 * both down refuse (fail closed); a payer found rejected on completion fails the link.
 */

let local: StandIn;
let t: TestApp;
let fake: FakeScreening;
let merchant: Tenant;
let merchantHooks: Receiver;
let orchestratorHooks: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;
let orchestratorKey: string;
/** A client ID linked to the orchestrator, with a KYT plan (Hypernative first, Merkle Science backup). */
let planned: string;
/** The merchant's destination, which the planned client ID is bound to. */
let destinationId: string;
let rivalWebhookId: string;

const POLICY = '3f0c3c2e-5a41-4d6f-9a0e-7d3b2a1c0b9e';

beforeAll(async () => {
  local = await standIn('base', { walletCount: 6 });
  fake = await startFakeScreening();
  t = await createTestApp({
    env: {
      ...local.env,
      CONFIRMATIONS_BASE: '0',
      SCREENING_HYPERNATIVE_URL: fake.url,
      SCREENING_HYPERNATIVE_API_KEY: 'hn-test-key',
      SCREENING_MERKLESCIENCE_URL: fake.url,
      SCREENING_MERKLESCIENCE_API_KEY: 'ms-test-key',
      SCREENING_TIMEOUT_MS: '1000',
      SCREENING_CACHE_SECONDS: '60',
    },
    transports: local.transports,
  });
  merchant = await createTenant(t.db, 'Merchant');
  indexer = testIndexer(t, { confirmations: 0 });
  dispatcher = testDispatcher(t);
  const target = resolveTarget(t.chains, {
    walletAddress: accountOf(local.chain, 0).address,
    chainId: 8453,
    tokenAddress: local.chain.addresses.usdc,
  });
  const destination = await activateDestination(t.db, t.clock, merchant.accountId, target);
  destinationId = destination.destinationId;
  const platform = await createOrchestrator(t.db, 'Platform');
  orchestratorKey = platform.orchestratorKey;
  const client = await createClientId(t.db, {
    accountId: merchant.accountId,
    label: 'Planned',
    allowedDomains: [],
    payeeDestinationId: destination.destinationId,
  });
  planned = client.clientId;
  await linkClientId(t.db, platform.orchestratorId, planned);
  await updateKytPlan(t.db, merchant.accountId, client.id, {
    providers: [{ provider: 'hypernative', policyId: POLICY }, { provider: 'merklescience' }],
  });
  // Another account listening for its own events: it hears nothing of the merchant's links.
  const rival = await createTenant(t.db, 'Rival');
  const rivalHook = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': rival.apiKey },
    payload: { url: 'https://hooks.example.com/rival' },
  });
  expect(rivalHook.statusCode, rivalHook.body).toBe(201);
  rivalWebhookId = rivalHook.json().id;
  merchantHooks = await startReceiver();
  orchestratorHooks = await startReceiver();
  for (const [url, headers, receiver] of [
    ['/v1/webhook', { 'x-api-key': merchant.apiKey }, merchantHooks],
    ['/v2/orchestrators/webhooks', { 'x-orchestrator-key': orchestratorKey }, orchestratorHooks],
  ] as const) {
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers,
      payload: { url: receiver.url },
    });
    expect(res.statusCode, res.body).toBe(201);
    receiver.verifyWith(res.json().secret);
  }
  await indexer.tick();
});
afterAll(async () => {
  await merchantHooks?.close();
  await orchestratorHooks?.close();
  await t?.close();
  await fake?.close();
  await local?.chain.close();
});
beforeEach(async () => {
  fake.recover();
  // What the test before left to send is sent now, not counted by this one.
  while ((await dispatcher.runOnce()) > 0);
  merchantHooks.received.length = 0;
  orchestratorHooks.received.length = 0;
  // Past every cached answer of the test before.
  t.clock.advance(61_000);
});

const wallet = (index: number) => accountOf(local.chain, index).address;

async function createLink(headers: Record<string, string>, accessPolicy?: object) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers,
    payload: {
      requests: [{ amount: '2', ...(headers['x-api-key'] && { destinationId }) }],
      ...(accessPolicy && { accessPolicy }),
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { token: string; requestIds: string[] };
}

const withKey = () => ({ 'x-api-key': merchant.apiKey });
const pair = () => ({ 'x-orchestrator-key': orchestratorKey, 'x-client-id': planned });

function pay(token: string, payer: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${payer}`,
    headers: withKey(),
  });
}

function refusal(code: string, message: string) {
  return { statusCode: 403, error: 'Forbidden', message, code };
}

async function deliveries(event: string) {
  return t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.event, event));
}

describe('an allowlist', () => {
  it('lets a listed wallet pay, in any case, and the link completes on chain', async () => {
    const payer = accountOf(local.chain, 1);
    const { token } = await createLink(withKey(), {
      mode: 'off',
      allowedPayerAddresses: [payer.address.toUpperCase().replace('0X', '0x')],
    });
    const res = await pay(token, payer.address.toLowerCase());
    expect(res.statusCode, res.body).toBe(200);
    await sendAll(local.chain, payer, res.json().transactions);
    await indexer.tick();
    const [row] = await t.db.select().from(securePayments).where(eq(securePayments.token, token));
    expect(row?.status).toBe('completed');
    // An allowlist alone screens nobody.
    expect(fake.received).toEqual([]);
  });

  it('refuses another wallet with 403 and no calldata, reported once per ten minutes', async () => {
    const { token, requestIds } = await createLink(withKey(), {
      allowedPayerAddresses: [wallet(1)],
    });
    const stranger = wallet(2);
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await pay(token, stranger);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject(refusal('payer_not_allowed', PAYER_NOT_ALLOWED_MESSAGE));
      expect(res.body).not.toContain('transactions');
    }
    const post = await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/calldata`,
      headers: withKey(),
      payload: { wallet: stranger },
    });
    expect(post.statusCode).toBe(403);
    const [only] = await deliveries('secure_payment.access_rejected');
    expect(only?.webhookId).not.toBe(rivalWebhookId);
    expect(await deliveries('secure_payment.access_rejected')).toHaveLength(1);
    await dispatcher.runOnce();
    const [event] = await merchantHooks.waitFor(1);
    expect(event?.body).toEqual({
      event: 'secure_payment.access_rejected',
      requestId: requestIds[0],
      attemptedPayerWalletAddress: stranger.toLowerCase(),
      timestamp: t.clock.now().toISOString(),
    });

    t.clock.advance(ACCESS_REJECTED_WINDOW_MS - 1_000);
    expect((await pay(token, stranger)).statusCode).toBe(403);
    expect(await deliveries('secure_payment.access_rejected')).toHaveLength(1);
    t.clock.advance(2_000);
    expect((await pay(token, stranger)).statusCode).toBe(403);
    expect(await deliveries('secure_payment.access_rejected')).toHaveLength(2);
  });

  it('reports again at once when every delivery of the last report failed', async () => {
    const { token } = await createLink(withKey(), { allowedPayerAddresses: [wallet(1)] });
    expect((await pay(token, wallet(3))).statusCode).toBe(403);
    const [claim] = await t.db
      .select()
      .from(accessRejections)
      .where(eq(accessRejections.wallet, wallet(3).toLowerCase()));
    expect(claim?.deliveryIds).toHaveLength(1);
    await t.db
      .update(webhookDeliveries)
      .set({ status: 'failed' })
      .where(eq(webhookDeliveries.id, claim?.deliveryIds[0] ?? ''));
    expect((await pay(token, wallet(3))).statusCode).toBe(403);
    const rows = (await deliveries('secure_payment.access_rejected')).filter((row) =>
      row.body.includes(wallet(3).toLowerCase()),
    );
    expect(rows).toHaveLength(2);
  });

  it('reports a wallet off the list that opens the link, and tells it why', async () => {
    const { token, requestIds } = await createLink(withKey(), {
      allowedPayerAddresses: [wallet(1)],
    });
    const open = (payer: string) =>
      t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${token}?wallet=${payer}`,
        headers: withKey(),
      });
    const listed = await open(wallet(1));
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().accessDecision).toBeUndefined();
    const reported = (await deliveries('secure_payment.access_rejected')).length;
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await open(wallet(4));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().accessDecision).toEqual({
        status: 'rejected',
        reasonCode: 'wallet_not_allowed',
        provider: null,
        walletResults: [
          {
            walletAddress: wallet(4).toLowerCase(),
            walletType: 'eoa',
            parentWalletAddress: null,
            status: 'rejected',
            reasonCode: 'wallet_not_allowed',
            provider: null,
            evaluatedAt: t.clock.now().toISOString(),
          },
        ],
      });
    }
    expect(await deliveries('secure_payment.access_rejected')).toHaveLength(reported + 1);
    await dispatcher.runOnce();
    const events = await merchantHooks.waitFor(1);
    expect(events.at(-1)?.body).toMatchObject({
      event: 'secure_payment.access_rejected',
      requestId: requestIds[0],
      attemptedPayerWalletAddress: wallet(4).toLowerCase(),
    });
  });

  it('refuses a malformed allowlist entry by its index', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: withKey(),
      payload: {
        requests: [{ amount: '2' }],
        accessPolicy: { allowedPayerAddresses: [wallet(1), 'not-a-wallet'] },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      {
        field: 'accessPolicy.allowedPayerAddresses[1]',
        message: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
      },
    ]);
  });
});

describe('screening under a KYT plan', () => {
  it('refuses a sanctioned wallet before calldata and tells the orchestrator', async () => {
    const sanctioned = wallet(4);
    fake.sanction(sanctioned);
    const { token } = await createLink(pair());
    const res = await pay(token, sanctioned);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject(
      refusal('payer_screening_rejected', PAYER_SCREENING_REJECTED_MESSAGE),
    );
    expect(fake.received.at(-1)).toEqual({
      provider: 'hypernative',
      address: sanctioned.toLowerCase(),
      apiKey: 'hn-test-key',
    });
    await dispatcher.runOnce();
    const [event] = await orchestratorHooks.waitFor(1);
    expect(event?.body).toEqual({
      event: 'kyt.screening.completed',
      paymentToken: token,
      walletAddress: sanctioned.toLowerCase(),
      eoaAddress: sanctioned.toLowerCase(),
      smartAccountAddress: null,
      status: 'rejected',
      provider: 'hypernative',
      policyId: POLICY,
      timestamp: t.clock.now().toISOString(),
    });
    // KYT rejections are not allowlist refusals.
    expect(merchantHooks.received).toEqual([]);
    const audit = await t.db
      .select()
      .from(screeningResults)
      .where(eq(screeningResults.wallet, sanctioned.toLowerCase()));
    expect(audit).toMatchObject([{ provider: 'hypernative', status: 'rejected', stage: 'access' }]);
    expect(audit[0]?.reason).toContain('Sanctioned');
  });

  it('screens a wallet once for a page’s several calls, within the cache time', async () => {
    const { token } = await createLink(pair());
    const before = fake.received.length;
    for (let i = 0; i < 3; i++) expect((await pay(token, wallet(5))).statusCode).toBe(200);
    expect(fake.received.length - before).toBe(1);
  });

  it('reuses an answer only for the same policy, and tells each link’s orchestrator once', async () => {
    const first = await createLink(pair());
    const second = await createLink(pair());
    const before = fake.received.length;
    expect((await pay(first.token, wallet(5))).statusCode).toBe(200);
    expect((await pay(second.token, wallet(5))).statusCode).toBe(200);
    expect((await pay(second.token, wallet(5))).statusCode).toBe(200);
    expect(fake.received.length - before).toBe(1);
    await dispatcher.runOnce();
    const events = await orchestratorHooks.waitFor(2);
    expect(events.map((e) => e.body.paymentToken).sort()).toEqual(
      [first.token, second.token].sort(),
    );
    // Another policy (none: the link's own provider) asks the provider again.
    const own = await createLink(withKey(), {
      mode: 'kyt_all_wallets',
      screeningProvider: 'hypernative',
    });
    expect((await pay(own.token, wallet(5))).statusCode).toBe(200);
    expect(fake.received.length - before).toBe(2);
  });

  it('falls to the backup provider when the primary fails, and answers from it', async () => {
    fake.fail('hypernative', { kind: 'error', status: 503 });
    const sanctioned = wallet(3);
    fake.sanction(sanctioned);
    const { token } = await createLink(pair());
    const before = fake.received.length;
    const res = await pay(token, sanctioned);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('payer_screening_rejected');
    expect(fake.received.slice(before).map((call) => call.provider)).toEqual([
      'hypernative',
      'merklescience',
    ]);
    expect(fake.received.at(-1)?.apiKey).toBe('ms-test-key');
    const [latest] = await t.db
      .select()
      .from(screeningResults)
      .where(
        and(
          eq(screeningResults.wallet, sanctioned.toLowerCase()),
          eq(screeningResults.provider, 'merklescience'),
        ),
      );
    expect(latest).toMatchObject({ status: 'rejected', reason: 'Critical risk: Sanctions' });
  });

  it('falls to the backup when the primary hangs past the timeout', async () => {
    fake.fail('hypernative', { kind: 'hang' });
    const { token } = await createLink(pair());
    const before = fake.received.length;
    expect((await pay(token, wallet(2))).statusCode).toBe(200);
    expect(fake.received.slice(before).map((call) => call.provider)).toEqual([
      'hypernative',
      'merklescience',
    ]);
  });

  it('refuses every wallet while both providers are down (fail closed), and no event goes out', async () => {
    fake.fail('hypernative', { kind: 'error', status: 500 });
    fake.fail('merklescience', { kind: 'error', status: 502 });
    const { token } = await createLink(pair());
    const kytEvents = (await deliveries('kyt.screening.completed')).length;
    const audited = (await t.db.select().from(screeningResults)).length;
    const res = await pay(token, wallet(1));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject(
      refusal('payer_screening_unavailable', PAYER_SCREENING_UNAVAILABLE_MESSAGE),
    );
    expect(await deliveries('kyt.screening.completed')).toHaveLength(kytEvents);
    expect(await t.db.select().from(screeningResults)).toHaveLength(audited);
  });

  it('screens the payer again on completion and fails the link when it is rejected then', async () => {
    const payer = accountOf(local.chain, 5);
    const { token } = await createLink(pair());
    const res = await pay(token, payer.address);
    expect(res.statusCode, res.body).toBe(200);
    await sendAll(local.chain, payer, res.json().transactions);
    await indexer.tick();
    // Listed between the calldata and the payment's detection; the calldata's approval, still
    // in the cache, is not what completion goes by.
    fake.sanction(payer.address);
    const screener = createCompletionScreener({
      db: t.db,
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      screening: createScreeningService(t.config.screening),
    });
    expect(await screener.round()).toBe(false);
    const [row] = await t.db.select().from(securePayments).where(eq(securePayments.token, token));
    expect(row?.status).toBe('compliance_failed');
    const seen = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}`,
      headers: withKey(),
    });
    expect(seen.json()).toMatchObject({ code: 'secure_payment_compliance_failed' });
    await dispatcher.runOnce();
    const events = await orchestratorHooks.waitFor(3);
    const kyt = events.filter((e) => e.body.event === 'kyt.screening.completed');
    expect(kyt.map((e) => e.body.status).sort()).toEqual(['approved', 'rejected']);
  });
});

describe('a link’s requests on their own routes', () => {
  it('hold the payer to the link’s allowlist on /v2 and /v1 pay and routes', async () => {
    const { requestIds } = await createLink(withKey(), {
      allowedPayerAddresses: [wallet(1)],
    });
    const reference = (
      await t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestIds[0]}`,
        headers: withKey(),
      })
    ).json().paymentReference;
    const stranger = wallet(2);
    const reported = (await deliveries('secure_payment.access_rejected')).length;
    for (const url of [
      `/v2/request/${requestIds[0]}/pay?wallet=${stranger}`,
      `/v2/request/${requestIds[0]}/routes?wallet=${stranger}`,
      `/v1/request/${reference}/pay?wallet=${stranger}`,
      `/v1/request/${reference}/routes?wallet=${stranger}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: withKey() });
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toMatchObject(refusal('payer_not_allowed', PAYER_NOT_ALLOWED_MESSAGE));
    }
    const bare = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestIds[0]}/pay`,
      headers: withKey(),
    });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().errors[0].field).toBe('wallet');
    expect(await deliveries('secure_payment.access_rejected')).toHaveLength(reported + 1);
    const listed = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestIds[0]}/pay?wallet=${wallet(1)}`,
      headers: withKey(),
    });
    expect(listed.statusCode, listed.body).toBe(200);
  });

  it('screens the payer of a screened link’s request', async () => {
    const sanctioned = wallet(4);
    fake.sanction(sanctioned);
    const { requestIds } = await createLink(pair());
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestIds[0]}/pay?wallet=${sanctioned}`,
      headers: withKey(),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('payer_screening_rejected');
  });
});
