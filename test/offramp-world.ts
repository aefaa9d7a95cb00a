import pino from 'pino';
import { getAddress } from 'viem';
import { expect } from 'vitest';
import { signTimed } from '../src/base/timed-signature.ts';
import type { KycStatus, PaymentDetailStatus } from '../src/db/schema/payers.ts';
import { offrampTransfers, payers, paymentDetails } from '../src/db/schema.ts';
import type { Indexer } from '../src/detection/indexer.ts';
import { erc20Abi } from '../src/payments/abis.ts';
import { type FakeOfframp, startFakeOfframp } from '../src/sandbox/offramp/fake-offramp.ts';
import type { Dispatcher } from '../src/webhooks/dispatcher.ts';
import { createRealClock, createTestApp, type TestApp } from './app.ts';
import { type StandIn, standIn } from './chain.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';
import { testDispatcher, testIndexer } from './workers.ts';

/**
 * Crypto-to-fiat end to end: a local EVM standing in for Sepolia with the real contracts, the
 * app listening on loopback (the fake off-ramp calls it back), the fake off-ramp watching its
 * deposit addresses' USDC balances, a webhook receiver checking signatures, and the indexer
 * and dispatcher driven by hand. Payers and payment details are written directly (their routes
 * are src/payer/'s).
 */

const OFFRAMP_SECRET = 'offramp-webhook-secret-for-tests';
const OFFRAMP_KEY = 'offramp-api-key-for-tests';

export interface OfframpWorld {
  readonly local: StandIn;
  readonly t: TestApp;
  readonly fake: FakeOfframp;
  readonly tenant: Tenant;
  readonly other: Tenant;
  readonly receiver: Receiver;
  readonly indexer: Indexer;
  readonly dispatcher: Dispatcher;
  readonly baseUrl: string;
  close(): Promise<void>;
}

export async function startOfframpWorld(): Promise<OfframpWorld> {
  const local = await standIn('sepolia');
  const fake = await startFakeOfframp({
    webhookSecret: OFFRAMP_SECRET,
    apiKey: OFFRAMP_KEY,
    stepDelayMs: null,
    watch: {
      pollMs: 50,
      logger: pino({ level: 'silent' }),
      balanceOf: (_rail, address) =>
        local.chain.client.readContract({
          address: getAddress(local.chain.addresses.usdc),
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [address],
        }),
    },
  });
  const t = await createTestApp({
    env: {
      ...local.env,
      OFFRAMP_URL: fake.url,
      OFFRAMP_API_KEY: OFFRAMP_KEY,
      OFFRAMP_WEBHOOK_SECRET: OFFRAMP_SECRET,
    },
    transports: local.transports,
    // The fake signs with the wall clock; the callback route checks against ours.
    clock: createRealClock(),
  });
  const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  fake.setCallbackUrl(`${baseUrl}/v2/offramp/callbacks`);
  const tenant = await createTenant(t.db, 'Payroll');
  const other = await createTenant(t.db, 'Other');
  const receiver = await startReceiver();
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  receiver.verifyWith(registered.json().secret);
  return {
    local,
    t,
    fake,
    tenant,
    other,
    receiver,
    indexer: testIndexer(t, { network: 'sepolia', confirmations: 1 }),
    dispatcher: testDispatcher(t),
    baseUrl,
    close: async () => {
      await fake.close();
      await receiver.close();
      await t.close();
      await local.chain.close();
    },
  };
}

/** A payer of the tenant's and one bank account, in the states given (approved by default). */
export async function insertPayer(
  world: Pick<OfframpWorld, 't'>,
  accountId: string,
  clientUserId: string,
  states: {
    kyc?: KycStatus;
    agreement?: 'completed' | 'pending';
    details?: PaymentDetailStatus;
  } = {},
): Promise<{ payerId: string; paymentDetailsId: string }> {
  const [payer] = await world.t.db
    .insert(payers)
    .values({
      accountId,
      clientUserId,
      kycStatus: states.kyc ?? 'approved',
      agreementStatus: states.agreement ?? 'completed',
    })
    .returning();
  if (!payer) throw new Error('no payer');
  const [details] = await world.t.db
    .insert(paymentDetails)
    .values({
      payerId: payer.id,
      accountId,
      status: states.details ?? 'approved',
      currency: 'usd',
      beneficiaryType: 'individual',
    })
    .returning();
  if (!details) throw new Error('no payment details');
  return { payerId: payer.id, paymentDetailsId: details.id };
}

/** A crypto-to-fiat request of `amount` USDC on the stand-in Sepolia, with no payee. */
export async function createOfframpRequest(world: OfframpWorld, amount: string): Promise<string> {
  const res = await world.t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: { 'x-api-key': world.tenant.apiKey },
    payload: {
      amount,
      invoiceCurrency: 'USDC-sepolia',
      paymentCurrency: 'USDC-sepolia',
      isCryptoToFiatAvailable: true,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().requestId;
}

export async function transferCount(world: Pick<OfframpWorld, 't'>): Promise<number> {
  return (await world.t.db.select().from(offrampTransfers)).length;
}

/** A callback as the provider signs it (or with the signature given). */
export async function postCallback(
  world: OfframpWorld,
  transferId: string,
  state: string,
  signature?: string | null,
) {
  const body = JSON.stringify({
    event_id: `ev_${state}_${Date.now()}`,
    event_type: 'transfer.updated',
    data: { id: transferId, state },
  });
  const header =
    signature === undefined
      ? signTimed(OFFRAMP_SECRET, Math.floor(Date.now() / 1000), body)
      : signature;
  return fetch(`${world.baseUrl}/v2/offramp/callbacks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(header !== null && { 'x-offramp-signature': header }),
    },
    body,
  });
}

/** Waits until `check` holds (the fake and the app work on their own time). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
