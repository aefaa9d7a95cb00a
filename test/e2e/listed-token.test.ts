import { type Address, getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Indexer } from '../../src/detection/indexer.ts';
import { erc20Abi } from '../../src/payments/abis.ts';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { testIndexer } from '../workers.ts';

/**
 * A request in a token of Request's token list that the curated set lacks: USDS on Arbitrum
 * (18 decimals), pointed by TOKENS_ARBITRUM_ONE at the local chain's 18-decimal test token,
 * created, paid through `/pay` with a fee leg, and detected as paid. Listed currencies the
 * server cannot take are refused by name.
 */

const FEE_ADDRESS = getAddress('0x00000000000000000000000000000000000fee01');

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let indexer: Indexer;
let usds: Address;

beforeAll(async () => {
  local = await standIn('arbitrum-one');
  usds = getAddress(local.chain.addresses.dai);
  const tokens = JSON.parse(local.env.TOKENS_ARBITRUM_ONE ?? '{}') as Record<string, string>;
  const env = { ...local.env, TOKENS_ARBITRUM_ONE: JSON.stringify({ ...tokens, USDS: usds }) };
  t = await createTestApp({ env, transports: local.transports });
  tenant = await createTenant(t.db, 'Listed');
  indexer = testIndexer(t, { network: 'arbitrum-one', confirmations: 0 });
});
afterAll(async () => {
  await t.close();
  await local.chain.close();
});

const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app.inject({
    method,
    url,
    headers: { 'x-api-key': tenant.apiKey },
    ...(payload && { payload }),
  });

const balanceOf = (owner: Address) =>
  local.chain.client.readContract({
    address: usds,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });

type PayAnswer = {
  transactions: { to: Address; data: Hex; value: { hex: Hex } }[];
  metadata: { paymentTransactionIndex: number };
};

const asSent = (tx: PayAnswer['transactions'][number]) => ({
  to: tx.to,
  data: tx.data,
  value: tx.value.hex,
  chainId: local.chain.chainId,
});

describe('a request in a listed token outside the curated set', () => {
  it('is served as the list writes it, and the local deployment stands in for it', async () => {
    const listed = await api('GET', '/v2/currencies?id=USDS-arbitrum-one');
    expect(listed.json()).toEqual({
      id: 'USDS-arbitrum-one',
      name: 'USDS',
      symbol: 'USDS',
      decimals: 18,
      address: usds,
      network: 'arbitrum-one',
      type: 'ERC20',
      hash: usds,
      chainId: 42161,
    });
  });

  it('is created, paid through /pay with its fee in 18 decimals exactly, and detected as paid', async () => {
    const payee = accountOf(local.chain, 1).address;
    const payer = accountOf(local.chain, 2);
    const created = await api('POST', '/v2/request', {
      amount: '123.4567890123456788',
      payee,
      invoiceCurrency: 'USDS-arbitrum-one',
      paymentCurrency: 'usds-arbitrum-one',
    });
    expect(created.statusCode, created.body).toBe(201);
    const { requestId } = created.json() as { requestId: string };
    const routes = await api('GET', `/v2/request/${requestId}/routes?wallet=${payer.address}`);
    expect(routes.statusCode, routes.body).toBe(200);
    expect(routes.json().routes).toMatchObject([{ id: 'REQUEST_NETWORK_PAYMENT' }]);

    const pay = await api(
      'GET',
      `/v2/request/${requestId}/pay?wallet=${payer.address}&feePercentage=0.5&feeAddress=${FEE_ADDRESS}`,
    );
    expect(pay.statusCode, pay.body).toBe(200);
    const answer = pay.json() as PayAnswer;
    const index = answer.metadata.paymentTransactionIndex;
    const payment = answer.transactions[index];
    if (!payment) throw new Error('no payment at paymentTransactionIndex');
    const others = answer.transactions.filter((_, i) => i !== index);
    expect(others.every((tx) => getAddress(tx.to) === usds)).toBe(true);

    const payeeBefore = await balanceOf(payee);
    const feeBefore = await balanceOf(FEE_ADDRESS);
    const payerBefore = await balanceOf(payer.address);
    await sendAll(local.chain, payer, [...others.map(asSent), asSent(payment)]);
    const amount = 123_456_789_012_345_678_800n;
    const fee = amount / 200n; // 0.5 %, exact at 18 decimals
    expect(fee * 200n).toBe(amount);
    expect((await balanceOf(payee)) - payeeBefore).toBe(amount);
    expect((await balanceOf(FEE_ADDRESS)) - feeBefore).toBe(fee);
    expect(payerBefore - (await balanceOf(payer.address))).toBe(amount + fee);

    expect((await indexer.tick()).recorded).toBe(1);
    const status = await api('GET', `/v2/request/${requestId}`);
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json()).toMatchObject({ status: 'paid', hasBeenPaid: true });
  });

  it('is paid out through POST /v2/payouts, calldata and all', async () => {
    const payee = accountOf(local.chain, 3).address;
    const payer = accountOf(local.chain, 4);
    const res = await api('POST', '/v2/payouts', {
      amount: '0.000000000000000001',
      payee,
      invoiceCurrency: 'USDS-arbitrum-one',
      paymentCurrency: 'USDS-arbitrum-one',
      payerWallet: payer.address,
    });
    expect(res.statusCode, res.body).toBe(201);
    const answer = res.json() as PayAnswer;
    const before = await balanceOf(payee);
    await sendAll(local.chain, payer, answer.transactions.map(asSent));
    expect((await balanceOf(payee)) - before).toBe(1n);
  });

  it('is paid out in a batch with a curated token, each payee exactly', async () => {
    const payer = accountOf(local.chain, 2);
    const payees = [
      getAddress('0x00000000000000000000000000000000000b0001'),
      getAddress('0x00000000000000000000000000000000000b0002'),
    ];
    const before = await Promise.all(payees.map(balanceOf));
    const res = await api('POST', '/v2/payouts/batch', {
      requests: [
        { payee: payees[0], amount: '2.000000000000000003', currency: 'USDS-arbitrum-one' },
        { payee: payees[1], amount: '0.5', currency: 'DAI-arbitrum-one' },
      ].map(({ currency, ...item }) => ({
        ...item,
        invoiceCurrency: currency,
        paymentCurrency: currency,
      })),
      payer: payer.address,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as {
      ERC20ApprovalTransactions: Sendable[];
      batchPaymentTransaction: Sendable;
    };
    await sendAll(local.chain, payer, [
      ...body.ERC20ApprovalTransactions.map(sendable),
      sendable(body.batchPaymentTransaction),
    ]);
    // USDS and DAI stand on one local token here: each payee is paid its own amount of it.
    const after = await Promise.all(payees.map(balanceOf));
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual([
      2_000_000_000_000_000_003n,
      500_000_000_000_000_000n,
    ]);
  });
});

type Sendable = { to: Address; data: Hex; value: number | { hex: Hex } };

const sendable = (tx: Sendable): EvmTransaction => ({
  to: tx.to,
  data: tx.data,
  value: typeof tx.value === 'number' ? `0x${tx.value.toString(16)}` : tx.value.hex,
  chainId: local.chain.chainId,
});

describe('listed currencies this server cannot take', () => {
  const body = (currency: string) => ({
    amount: '1',
    payee: accountOf(local.chain, 1).address,
    invoiceCurrency: currency,
    paymentCurrency: currency,
  });

  it('answers 400 naming the network for a currency listed on a network we do not serve', async () => {
    for (const path of ['/v2/request', '/v2/payouts']) {
      const res = await api('POST', path, body('YEL-fantom'));
      expect(res.statusCode, path).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'network_not_supported',
        message:
          'Payments in YEL-fantom are not supported on fantom: this server has no payment contracts on that network',
      });
    }
  });

  it('answers 503 for a listed token of a network with no RPC configured, writing nothing', async () => {
    const before = (await api('GET', '/v2/request?limit=100')).json();
    const res = await api('POST', '/v2/request', body('BUSD-bsc'));
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      code: 'chain_unavailable',
      message: 'Network bsc is not available on this server: no RPC is configured for it',
    });
    expect((await api('GET', '/v2/request?limit=100')).json()).toEqual(before);
  });

  it('answers 400 for a fiat invoice in a listed token before asking for its network’s RPC', async () => {
    // No feed path reaches a listed token: the request can never be made, RPC or not (bsc has
    // none here, arbitrum-one has one).
    for (const token of ['BUSD-bsc', 'USDS-arbitrum-one']) {
      const network = token.slice(token.indexOf('-') + 1);
      for (const path of ['/v2/request', '/v2/payouts']) {
        const before = (await api('GET', '/v2/request?limit=100')).json();
        const res = await api('POST', path, { ...body(token), invoiceCurrency: 'USD' });
        expect(res.statusCode, `${path} ${token}: ${res.body}`).toBe(400);
        expect(res.json()).toMatchObject({
          code: 'conversion_route_unavailable',
          message: `No conversion route from USD to ${token} on ${network}`,
        });
        expect((await api('GET', '/v2/request?limit=100')).json()).toEqual(before);
      }
    }
    // So does a payee the network cannot be paid at.
    const res = await api('POST', '/v2/request', {
      ...body('BUSD-bsc'),
      payee: 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF',
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'payee', message: expect.any(String) }]);
  });

  it('keeps payout links to the curated set', async () => {
    const res = await api('POST', '/v2/secure-payments/payouts', {
      network: 'arbitrum-one',
      currency: 'USDS-arbitrum-one',
      amount: '1',
      recipient: accountOf(local.chain, 1).address,
      creatorWalletAddress: accountOf(local.chain, 2).address,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([
      {
        field: 'currency',
        message:
          'is a token-list currency outside the curated set that payout links take; pay it through POST /v2/payouts',
      },
    ]);
  });
});
