import { type Address, getAddress, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientId } from '../../src/auth/client-ids.ts';
import { webhookDeliveries } from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { testIndexer } from '../workers.ts';

/**
 * The worked example on the local chain, with the real Request bytecode: a 100 USDC
 * link carrying a payer-borne platform fee of 50 bps capped at 0.40 USD, a payee-borne one of
 * 1 %, and a protocol fee of 10 bps (payee-borne on a link, by the flow's default), paid
 * through `/pay`. Every party moves exactly what the plan and the preview say, to the base
 * unit; each fee leg is detected by its own payment reference.
 */

const balanceAbi = parseAbi(['function balanceOf(address) view returns (uint256)']);

let local: StandIn;
let t: TestApp;
let merchant: Tenant;
let indexer: Indexer;
let key: string;
/** A client ID linked to the platform per currency, bound to the payee's destination in it. */
const clientIds = new Map<string, string>();

const wallets = (currency = 'USDC-base') => ({
  // A wallet has one destination per chain: the DAI payee is another wallet.
  payee: accountOf(local.chain, currency === 'DAI-base' ? 6 : 1).address,
  payer: accountOf(local.chain, 2),
  payerFee: accountOf(local.chain, 3).address,
  payeeFee: accountOf(local.chain, 4).address,
  protocol: accountOf(local.chain, 5).address,
});

beforeAll(async () => {
  local = await standIn('base', { walletCount: 7 });
  t = await createTestApp({
    env: {
      ...local.env,
      PROTOCOL_FEE_BPS: '10',
      PROTOCOL_FEE_EVM_RECIPIENT: accountOf(local.chain, 5).address,
    },
    transports: local.transports,
  });
  indexer = testIndexer(t, { network: 'base', confirmations: 0 });
  merchant = await createTenant(t.db, 'Merchant');
  const platform = await createOrchestrator(t.db, 'Platform');
  key = platform.orchestratorKey;
  const w = wallets();
  for (const [flow, bearerOfPercent] of [
    ['incoming', 'recipient'],
    ['outgoing', 'recipient'],
  ] as const) {
    for (const config of [
      { feeBearer: 'payer', bps: 50, usdCap: '0.40', evmRecipientAddress: w.payerFee },
      { feeBearer: bearerOfPercent, bps: 100, evmRecipientAddress: w.payeeFee },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/orchestrators/fee-configs',
        headers: { 'x-orchestrator-key': key },
        payload: { flow, ...config },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }
  for (const [currency, token] of [
    ['USDC-base', local.chain.addresses.usdc],
    ['DAI-base', local.chain.addresses.dai],
  ] as const) {
    const target = resolveTarget(t.chains, {
      walletAddress: wallets(currency).payee,
      chainId: 8453,
      tokenAddress: token,
    });
    const destination = await activateDestination(t.db, t.clock, merchant.accountId, target);
    const { clientId } = await createClientId(t.db, {
      accountId: merchant.accountId,
      label: currency,
      allowedDomains: [],
      payeeDestinationId: destination.destinationId,
    });
    await linkClientId(t.db, platform.orchestratorId, clientId);
    clientIds.set(currency, clientId);
  }
  for (const [url, headers] of [
    ['/v1/webhook', { 'x-api-key': merchant.apiKey }],
    ['/v2/orchestrators/webhooks', { 'x-orchestrator-key': key }],
  ] as const) {
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers,
      payload: { url: 'https://hooks.example.com/fees' },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
});
afterAll(async () => {
  await indexer?.stop();
  await t?.close();
  await local?.chain.close();
});
// No snapshots reverted between tests: the indexer's checkpoint only moves forward, as a
// chain's head does. Each test measures what its own transactions moved.

const pair = (currency = 'USDC-base') => ({
  'x-orchestrator-key': key,
  'x-client-id': clientIds.get(currency) ?? '',
});

function balanceOf(token: string, owner: Address): Promise<bigint> {
  return local.chain.client.readContract({
    address: getAddress(token),
    abi: balanceAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

async function balances(token: string, currency?: string): Promise<Record<string, bigint>> {
  const w = wallets(currency);
  const entries = await Promise.all(
    (['payee', 'payerFee', 'payeeFee', 'protocol'] as const).map(
      async (name) => [name, await balanceOf(token, w[name])] as const,
    ),
  );
  return {
    ...Object.fromEntries(entries),
    payer: await balanceOf(token, w.payer.address),
  };
}

function moved(before: Record<string, bigint>, after: Record<string, bigint>) {
  return Object.fromEntries(
    Object.keys(before).map((name) => [name, (after[name] ?? 0n) - (before[name] ?? 0n)]),
  );
}

async function createLink(
  amount: string,
  currency = 'USDC-base',
): Promise<{ token: string; feePlan: unknown }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: pair(currency),
    payload: { requests: [{ amount }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function preview(amount: string, currency: string, flow: 'get_paid' | 'pay') {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments/fees/preview',
    headers: pair(),
    payload: { amount, currency, flow },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function pay(token: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${wallets().payer.address}`,
    headers: pair(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function linkView(token: string) {
  return t.app.inject({ method: 'GET', url: `/v2/secure-payments/${token}`, headers: pair() });
}

describe('a link with fee legs paid through /pay', () => {
  it('moves exactly the plan’s amounts for 100 USDC, each leg under its own reference', async () => {
    const usdc = local.chain.addresses.usdc;
    const link = await createLink('100');
    expect(link.feePlan).toEqual(await preview('100', 'USDC-base', 'get_paid'));
    expect(link.feePlan).toMatchObject({
      grossAmountUsd: '100',
      payerTotalAmountUsd: '100.4',
      netRecipientAmountUsd: '98.9',
    });

    const body = await pay(link.token);
    const w = wallets();
    expect(body.feeBundle).toMatchObject({
      defaultFeeBearer: 'payee',
      amountSummary: {
        grossAmount: '100',
        netRecipientAmount: '98.9',
        totalFees: '1.5',
        payeeBorneFees: '1.1',
        payerBorneFees: '0.4',
        payerTotal: '100.4',
      },
      fees: [
        { feeType: 'orchestrator_fee', feeBearer: 'payer', amount: '0.4', recipient: w.payerFee },
        { feeType: 'orchestrator_fee', feeBearer: 'payee', amount: '1', recipient: w.payeeFee },
        { feeType: 'protocol_fee', feeBearer: 'payee', amount: '0.1', recipient: w.protocol },
      ],
    });
    expect(body.metadata).toMatchObject({
      stepsRequired: 5,
      paymentTransactionIndex: 1,
      requiredAmount: '100.4',
      platformFee: { percentage: '0.5', address: w.payerFee },
      protocolFee: { percentage: '0.1', address: w.protocol },
    });
    const references = body.feeBundle.fees.map((fee: { paymentReference: string }) =>
      fee.paymentReference.toLowerCase(),
    );
    expect(new Set([...references, body.paymentReference.toLowerCase()]).size).toBe(4);

    const before = await balances(usdc);
    await sendAll(local.chain, w.payer, body.transactions);
    expect(moved(before, await balances(usdc))).toEqual({
      payee: 98_900_000n,
      payerFee: 400_000n,
      payeeFee: 1_000_000n,
      protocol: 100_000n,
      payer: -100_400_000n,
    });

    await indexer.tick();
    const completed = await linkView(link.token);
    expect(completed.statusCode).toBe(409);
    expect(completed.json().feeLegs).toMatchObject([
      { type: 'orchestrator_fee', feeBearer: 'payer', amount: '0.4', status: 'paid' },
      { type: 'orchestrator_fee', feeBearer: 'payee', amount: '1', status: 'paid' },
      { type: 'protocol_fee', feeBearer: 'payee', amount: '0.1', status: 'paid' },
    ]);
  });

  it('moves exactly the plan’s amounts on an 18-decimal token (DAI)', async () => {
    const link = await createLink('33.333333333333333333', 'DAI-base');
    expect(link.feePlan).toEqual(await preview('33.333333333333333333', 'DAI-base', 'get_paid'));
    const body = await pay(link.token);
    // 0.5 % of 33.33… is 0.1666…: capped at 0.40 it stays, rounded down to USD's 8 decimals.
    expect(body.feeBundle.fees.map((fee: { amount: string }) => fee.amount)).toEqual([
      '0.16666666',
      '0.33333333',
      '0.03333333',
    ]);
    // The summary is the payment's to the wei, though the plan's USD stops at 8 decimals.
    expect(body.feeBundle.amountSummary).toMatchObject({
      grossAmount: '33.333333333333333333',
      netRecipientAmount: '32.966666673333333333',
      payerTotal: '33.499999993333333333',
    });
    const dai = local.chain.addresses.dai;
    const before = await balances(dai, 'DAI-base');
    await sendAll(local.chain, wallets().payer, body.transactions);
    const e10 = 10_000_000_000n;
    expect(moved(before, await balances(dai, 'DAI-base'))).toEqual({
      payee: 33_333_333_333_333_333_333n - (33_333_333n + 3_333_333n) * e10,
      payerFee: 16_666_666n * e10,
      payeeFee: 33_333_333n * e10,
      protocol: 3_333_333n * e10,
      payer: -(33_333_333_333_333_333_333n + 16_666_666n * e10),
    });
  });

  it('moves exactly the plan’s amounts on a payout (flow outgoing, payer-borne protocol fee)', async () => {
    const w = wallets();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/payouts',
      headers: pair(),
      payload: {
        recipient: w.payee,
        creatorWalletAddress: w.payer.address,
        network: 'base',
        currency: 'USDC-base',
        amount: '100',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const plan = res.json().feePlan;
    expect(plan).toEqual(await preview('100', 'USDC-base', 'pay'));
    expect(plan).toMatchObject({ flow: 'pay', defaultFeeBearer: 'payer' });
    const body = await pay(res.json().token);
    expect(body.flow).toBe('outgoing');
    expect(body.feeBundle.amountSummary).toMatchObject({
      netRecipientAmount: '99',
      payerBorneFees: '0.5',
      payerTotal: '100.5',
    });
    const before = await balances(local.chain.addresses.usdc);
    await sendAll(local.chain, w.payer, body.transactions);
    expect(moved(before, await balances(local.chain.addresses.usdc))).toEqual({
      payee: 99_000_000n,
      payerFee: 400_000n,
      payeeFee: 1_000_000n,
      protocol: 100_000n,
      payer: -100_500_000n,
    });
  });

  it('leaves a skipped fee leg outstanding on a link its payee’s payment completed', async () => {
    const link = await createLink('10');
    const body = await pay(link.token);
    // The approval, the payee's leg and the first fee leg; the last two are never sent.
    await sendAll(local.chain, wallets().payer, body.transactions.slice(0, 3));
    await indexer.tick();
    const completed = await linkView(link.token);
    expect(completed.statusCode).toBe(409);
    expect(completed.json().requestStatuses).toMatchObject([{ hasBeenPaid: true }]);
    expect(completed.json().feeLegs).toMatchObject([
      { feeBearer: 'payer', amount: '0.05', status: 'paid' },
      { feeBearer: 'payee', amount: '0.1', paidAmount: '0', status: 'outstanding', txHash: null },
      { type: 'protocol_fee', amount: '0.01', status: 'outstanding' },
    ]);

    // The request's status lists them too, paid or owed.
    const [requestId] = completed
      .json()
      .requestStatuses.map((r: { requestId: string }) => r.requestId);
    const status = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${requestId}`,
      headers: { 'x-api-key': merchant.apiKey },
    });
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json()).toMatchObject({ hasBeenPaid: true, totalAmountPaid: '9.89' });
    expect(status.json().fees).toMatchObject([
      { type: 'platform', feeBearer: 'payer', amount: '0.05', status: 'paid' },
      { type: 'platform', feeBearer: 'payee', amount: '0.1', status: 'outstanding' },
      { feeType: 'protocol_fee', feeBearer: 'payee', amount: '0.01', status: 'outstanding' },
    ]);

    // payment.confirmed, to the merchant and to the platform, says which fee is still owed.
    const bodies = (await t.db.select().from(webhookDeliveries))
      .map((row) => JSON.parse(row.body))
      .filter((body) => body.event === 'payment.confirmed' && body.requestId === requestId);
    expect(bodies).toHaveLength(2);
    expect(bodies.filter((body) => body.orchestratorId !== undefined)).toHaveLength(1);
    for (const body of bodies) {
      expect(body.fees).toEqual([{ type: 'platform', amount: '0.05', currency: 'USDC-base' }]);
      expect(body.feeLegs.map((leg: { status: string }) => leg.status)).toEqual([
        'paid',
        'outstanding',
        'outstanding',
      ]);
    }
  });
});
