import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { securePayments, webhookDeliveries } from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import {
  type FakeScreening,
  startFakeScreening,
} from '../../src/sandbox/screening/fake-screening.ts';
import {
  COMPLETION_RETRY_MS,
  type CompletionScreener,
  createCompletionScreener,
} from '../../src/screening/completion.ts';
import { COMPLIANCE_NOT_ALLOWED, COMPLIANCE_REJECTED } from '../../src/screening/events.ts';
import { createScreeningService } from '../../src/screening/screen.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * The completion check, end to end: a link paid on a local chain is checked again once
 * detection completes it. A payer off the allowlist (calldata asked for a listed wallet, sent
 * from another) or rejected by a provider fails the link, and the merchant hears
 * `payment.failed` (`compliance_failed`) once, over HTTP. While the providers are down a link
 * waits `COMPLETION_RETRY_MS` before it is asked about again, and the round reports no more work.
 */

let local: StandIn;
let t: TestApp;
let fake: FakeScreening;
let merchant: Tenant;
let hooks: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;
let screener: CompletionScreener;
let destinationId: string;

beforeAll(async () => {
  local = await standIn('base', { walletCount: 5 });
  fake = await startFakeScreening();
  t = await createTestApp({
    env: {
      ...local.env,
      CONFIRMATIONS_BASE: '0',
      SCREENING_HYPERNATIVE_URL: fake.url,
      SCREENING_MERKLESCIENCE_URL: fake.url,
      SCREENING_TIMEOUT_MS: '1000',
      SCREENING_CACHE_SECONDS: '60',
    },
    transports: local.transports,
  });
  merchant = await createTenant(t.db, 'Merchant');
  indexer = testIndexer(t, { confirmations: 0 });
  dispatcher = testDispatcher(t);
  screener = createCompletionScreener({
    db: t.db,
    clock: t.clock,
    logger: pino({ level: 'silent' }),
    screening: createScreeningService(t.config.screening),
  });
  const target = resolveTarget(t.chains, {
    walletAddress: accountOf(local.chain, 0).address,
    chainId: 8453,
    tokenAddress: local.chain.addresses.usdc,
  });
  destinationId = (await activateDestination(t.db, t.clock, merchant.accountId, target))
    .destinationId;
  hooks = await startReceiver();
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': merchant.apiKey },
    payload: { url: hooks.url },
  });
  expect(res.statusCode, res.body).toBe(201);
  hooks.verifyWith(res.json().secret);
  await indexer.tick();
});
afterAll(async () => {
  await hooks?.close();
  await t?.close();
  await fake?.close();
  await local?.chain.close();
});
beforeEach(async () => {
  fake.recover();
  while ((await dispatcher.runOnce()) > 0);
  hooks.received.length = 0;
  t.clock.advance(61_000);
});

const wallet = (index: number) => accountOf(local.chain, index).address;

/** A link paid on chain by `sender`, with calldata asked for `asked`; detection completes it. */
async function paidLink(accessPolicy: object, asked: number, sender: number) {
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-api-key': merchant.apiKey },
    payload: { requests: [{ amount: '1', destinationId }], accessPolicy },
  });
  expect(created.statusCode, created.body).toBe(201);
  const { token, requestIds } = created.json() as { token: string; requestIds: string[] };
  const calldata = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${wallet(asked)}`,
    headers: { 'x-api-key': merchant.apiKey },
  });
  expect(calldata.statusCode, calldata.body).toBe(200);
  await sendAll(local.chain, accountOf(local.chain, sender), calldata.json().transactions);
  await indexer.tick();
  expect(await statusOf(token)).toBe('completed');
  return { token, requestId: requestIds[0] };
}

async function statusOf(token: string) {
  const [row] = await t.db.select().from(securePayments).where(eq(securePayments.token, token));
  return row?.status;
}

async function failedEvents() {
  return t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.event, 'payment.failed'));
}

describe('the completion check', () => {
  it('fails an allowlisted link paid from an unlisted wallet, and tells the merchant once', async () => {
    const { token, requestId } = await paidLink({ allowedPayerAddresses: [wallet(1)] }, 1, 2);
    expect(await screener.round()).toBe(false);
    expect(await statusOf(token)).toBe('compliance_failed');
    expect(await screener.round()).toBe(false);
    await dispatcher.runOnce();
    const events = await hooks.waitFor(3);
    const byEvent = Object.fromEntries(events.map((e) => [e.body.event, e.body]));
    expect(byEvent['secure_payment.access_rejected']).toMatchObject({
      requestId,
      attemptedPayerWalletAddress: wallet(2).toLowerCase(),
    });
    expect(byEvent['payment.failed']).toMatchObject({
      event: 'payment.failed',
      requestId,
      requestID: requestId,
      subStatus: 'compliance_failed',
      paymentProcessor: 'request-network',
      failureReason: COMPLIANCE_NOT_ALLOWED,
      securePaymentToken: token,
      payerAddress: wallet(2).toLowerCase(),
    });
    expect(byEvent['payment.failed']?.paymentReference).toMatch(/^0x[0-9a-f]{16}$/);
    expect(await failedEvents()).toHaveLength(1);
    // No provider is asked about an allowlist.
    expect(fake.received).toEqual([]);
  });

  it('lets an allowlisted link paid by a listed wallet stand', async () => {
    const { token } = await paidLink({ allowedPayerAddresses: [wallet(1)] }, 1, 1);
    const before = (await failedEvents()).length;
    expect(await screener.round()).toBe(false);
    expect(await statusOf(token)).toBe('completed');
    expect(await failedEvents()).toHaveLength(before);
  });

  it('tells the merchant of an API-key link whose payer a provider rejects on completion', async () => {
    const kyt = { mode: 'kyt_all_wallets', screeningProvider: 'hypernative' };
    const { token, requestId } = await paidLink(kyt, 3, 3);
    fake.sanction(wallet(3));
    expect(await screener.round()).toBe(false);
    expect(await statusOf(token)).toBe('compliance_failed');
    await dispatcher.runOnce();
    const events = await hooks.waitFor(2);
    const event = events.find((e) => e.body.event === 'payment.failed');
    expect(event?.body).toMatchObject({
      event: 'payment.failed',
      requestId,
      subStatus: 'compliance_failed',
      failureReason: COMPLIANCE_REJECTED,
      securePaymentToken: token,
      payerAddress: wallet(3).toLowerCase(),
    });
  });

  it('waits before asking again while the providers are down, and reports no more work', async () => {
    const kyt = { mode: 'kyt_all_wallets', screeningProvider: 'merklescience' };
    const { token } = await paidLink(kyt, 4, 4);
    fake.fail('merklescience', { kind: 'error', status: 503 });
    const before = fake.received.length;
    expect(await screener.round()).toBe(false);
    expect(fake.received.length - before).toBe(1);
    expect(await screener.round()).toBe(false);
    expect(fake.received.length - before).toBe(1);
    t.clock.advance(COMPLETION_RETRY_MS - 1_000);
    await screener.round();
    expect(fake.received.length - before).toBe(1);
    fake.recover();
    t.clock.advance(2_000);
    expect(await screener.round()).toBe(false);
    expect(fake.received.length - before).toBe(2);
    const [row] = await t.db.select().from(securePayments).where(eq(securePayments.token, token));
    expect(row).toMatchObject({ status: 'completed', completionRetryAt: null });
    expect(row?.completionScreenedAt).not.toBeNull();
  });
});
