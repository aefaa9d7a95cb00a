import {
  type Address,
  createWalletClient,
  custom,
  decodeFunctionData,
  getAddress,
  keccak256,
  parseAbi,
  parseUnits,
  toHex,
} from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeDepositV3 } from '../../src/crosschain/across.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import type { FakeAggregator } from '../../src/sandbox/aggregator/fake-aggregator.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { type CrossChainWorld, SPOKE_POOL, startCrossChainWorld } from '../crosschain-world.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * `/pay?chain=&token=` and `POST /calldata` with them: a link on Base (a local chain with the
 * real contracts) paid with USDT from Arbitrum (another local chain) through the fake routing
 * aggregator over real HTTP. The answer is the approval of the source token to the step's
 * approval address and the bridge call as the aggregator gave it, with the cross-chain
 * metadata; the route's destination calls pay the link and its protocol fee leg through our
 * fee proxy under their references, and a route that pays anyone else is refused with nothing
 * answered. Quotes are cached for their life and never served past it; a Tron link and a chain
 * without its token are refused; an aggregator that is down answers 503 at once. The bridge's
 * relayer (the transfer's second half) is not part of this file.
 */

const THIEF: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const PROTOCOL_RECIPIENT: Address = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
const TRANSFER = parseAbi(['function transfer(address to, uint256 amount)']);

let base: StandIn;
let arbitrum: StandIn;
let world: CrossChainWorld;
let fake: FakeAggregator;
let t: TestApp;
let tenant: Tenant;
/** Run on the next read of the Arbitrum chain, once: time passing while the payer is read. */
let onArbitrumRead: (() => void) | null = null;

beforeAll(async () => {
  base = await standIn('base');
  world = await startCrossChainWorld(base);
  ({ arbitrum, fake } = world);
  t = await createTestApp({
    env: {
      ...base.env,
      ...world.env,
      PROTOCOL_FEE_BPS: '10',
      PROTOCOL_FEE_EVM_RECIPIENT: PROTOCOL_RECIPIENT,
      LIFI_TIMEOUT_MS: '400',
      LIFI_BREAKER_FAILURES: '2',
      LIFI_BREAKER_HALF_OPEN_MS: '600000',
    },
    transports: {
      ...base.transports,
      ...world.transports,
      'arbitrum-one': custom(
        {
          request: (args) => {
            const hook = onArbitrumRead;
            onArbitrumRead = null;
            hook?.();
            return arbitrum.chain.provider.request(args);
          },
        },
        { retryCount: 0 },
      ),
    },
  });
  world.useClock(t.clock);
  tenant = await createTenant(t.db);
}, 180_000);
afterAll(async () => {
  await t?.close();
  await world?.close();
  await base?.chain.close();
});
beforeEach(() => {
  fake.payElsewhere(null);
  fake.setQuoteLifetime(300);
  fake.recover();
});

let wallets = 0;
function freshWallet(): Address {
  return getAddress(keccak256(toHex(`crosschain pay ${++wallets}`)).slice(0, 42));
}

/** A Base link paying `amount` USDC to a payee of its own; its payee. */
async function baseLink(amount: string): Promise<{ token: string; payee: Address }> {
  const payee = freshWallet();
  const target = resolveTarget(t.chains, {
    walletAddress: payee,
    chainId: 8453,
    tokenAddress: base.chain.addresses.usdc,
  });
  const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { requests: [{ destinationId, amount }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { token: res.json().token as string, payee };
}

function pay(token: string, query: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?${query}`,
    headers: { 'x-api-key': tenant.apiKey },
  });
}

const quotesAsked = () =>
  fake.received.filter((request) => request.path === '/v1/quote/contractCalls').length;

/** Sends `amount` whole USDT on the Arbitrum stand-in to `to`. */
async function fundUsdt(to: Address, amount: string): Promise<void> {
  const { chain } = arbitrum;
  const wallet = createWalletClient({
    account: accountOf(chain, 0),
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  const hash = await wallet.writeContract({
    address: getAddress(chain.addresses.usdt),
    abi: TRANSFER,
    functionName: 'transfer',
    args: [to, parseUnits(amount, 6)],
  });
  await chain.client.waitForTransactionReceipt({ hash });
}

describe('GET /v2/secure-payments/{token}/pay?chain=&token=', () => {
  it('answers the approval to the step’s approval address and the bridge call, paying the link and its fee leg on Base', async () => {
    const { token, payee } = await baseLink('25');
    const payer = freshWallet();
    await fundUsdt(payer, '30');
    const before = quotesAsked();
    const res = await pay(token, `wallet=${payer}&chain=ARBITRUM&token=USDT`);
    expect(res.statusCode, res.body).toBe(200);
    expect(quotesAsked()).toBe(before + 1);
    const body = res.json();
    const step = body.metadata.rawStep;
    // 25 USDC delivered on Base: 24.975 to the payee and the payee-borne 0.1 % protocol fee
    // (0.025) to its recipient. The bridge takes 0.5 USDT + 10 bps of what it is given:
    // (25 + 0.5) / 0.999 = 25.5255255..., rounded up, delivers one base unit more than asked.
    expect(step.estimate.toAmount).toBe('25000001');
    expect(step.action.fromAmount).toBe('25525526');
    const [approval, bridge] = body.transactions;
    expect(body.transactions).toHaveLength(2);
    expect(approval).toMatchObject({
      to: arbitrum.chain.addresses.usdt,
      chainId: 42161,
      value: '0x0',
      chainType: 'evm',
    });
    const approve = decodeFunctionData({ abi: erc20Abi, data: approval.data });
    expect(approve.functionName).toBe('approve');
    expect(approve.args).toEqual([SPOKE_POOL, 25_525_526n]);
    expect(step.estimate.approvalAddress).toBe(SPOKE_POOL);
    expect(bridge).toEqual({
      to: step.transactionRequest.to,
      data: step.transactionRequest.data,
      value: '0x0',
      chainId: 42161,
      chainType: 'evm',
    });
    // What the relayer will run on Base: our fee proxy, the payee's payment then the fee leg.
    const deposit = decodeDepositV3(bridge.data);
    expect(deposit.destinationChainId).toBe(8453n);
    expect(deposit.inputAmount).toBe(25_525_526n);
    expect(deposit.outputAmount).toBe(25_000_001n);
    const proxy = getAddress(base.chain.addresses.erc20FeeProxy);
    const calls = deposit.message.calls.map((call) => {
      expect(call.target).toBe(proxy);
      expect(call.approvalAddress).toBe(proxy);
      return decodeFunctionData({ abi: erc20FeeProxyAbi, data: call.callData }).args;
    });
    const usdc = getAddress(base.chain.addresses.usdc);
    expect(calls[0]).toEqual([
      usdc,
      payee,
      24_975_000n,
      body.paymentReference,
      0n,
      '0x0000000000000000000000000000000000000000',
    ]);
    expect(calls[1]).toEqual([
      usdc,
      PROTOCOL_RECIPIENT,
      25_000n,
      body.feeBundle.fees[0].paymentReference,
      0n,
      '0x0000000000000000000000000000000000000000',
    ]);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    expect(body.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      approvalTransactionIndex: 0,
      paymentTransactionIndex: 1,
      routeType: 'crosschain',
      requiredAmount: '25.525526',
      sourceAmount: '25.525526',
      balance: '30',
      hasEnoughBalance: true,
      quoteFetchedAt: t.clock.now().toISOString(),
      quoteExpiresAt: now + 120,
      executionDeadline: now + 300,
      executionDeadlineBreakdown: { bridge: { deadline: now + 300, source: 'decoded' } },
      costBreakdown: {
        bridgeFee: {
          required: true,
          currency: 'USDT',
          amount: '0.525525',
          amountUsd: '0.53',
          hasEnoughBalance: true,
        },
        fundingStatus: { hasEnoughPaymentToken: true },
        totals: {
          paymentAmount: '25',
          paymentCurrency: 'USDC-base',
          sourceAmount: '25.525526',
        },
      },
      protocolFee: { percentage: '0.1', address: PROTOCOL_RECIPIENT },
    });
    expect(body.feeBundle.fees).toHaveLength(1);
    expect(body.flow).toBe('incoming');
  });

  it('answers the same route to POST /calldata with chain and token in the body, from the cache', async () => {
    const { token } = await baseLink('10');
    const payer = freshWallet();
    const first = await pay(token, `wallet=${payer}&chain=ARBITRUM&token=USDT`);
    expect(first.statusCode, first.body).toBe(200);
    const before = quotesAsked();
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/calldata`,
      headers: { 'x-api-key': tenant.apiKey },
      payload: { wallet: payer, chain: 'ARBITRUM', token: 'USDT' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(first.json());
    expect(quotesAsked()).toBe(before);
    expect(res.json().metadata.hasEnoughBalance).toBe(false);
  });

  it('gives paymentOptions the quoted amount, bridge fee included, once /pay quoted that source', async () => {
    const { token } = await baseLink('10');
    const payer = freshWallet();
    // 10.2 USDT covers the link at face value, not with the bridge's fee (0.1 % and 0.5 USDT).
    await fundUsdt(payer, '10.2');
    const options = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${token}?wallet=${payer}`,
        headers: { 'x-api-key': tenant.apiKey },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().paymentOptions.ARBITRUM.USDT as Record<string, unknown>;
    };
    expect(await options()).toEqual({
      balance: '10.2',
      hasEnoughBalance: true,
      neededAmount: '10',
    });
    const before = quotesAsked();
    const quoted = await pay(token, `wallet=${payer}&chain=ARBITRUM&token=USDT`);
    expect(quoted.statusCode, quoted.body).toBe(200);
    const { sourceAmount } = quoted.json().metadata as { sourceAmount: string };
    expect(Number(sourceAmount)).toBeGreaterThan(10.2);
    expect(await options()).toEqual({
      balance: '10.2',
      hasEnoughBalance: false,
      neededAmount: sourceAmount,
    });
    // Read from the route kept for the wallet: the aggregator was asked once, by /pay.
    expect(quotesAsked()).toBe(before + 1);
  });

  it('asks again for another wallet or another source token, each its own cache entry', async () => {
    const { token } = await baseLink('10');
    const payer = freshWallet();
    const before = quotesAsked();
    for (const query of [
      `wallet=${payer}&chain=ARBITRUM&token=USDT`,
      `wallet=${payer}&chain=ARBITRUM&token=USDC`,
      `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`,
      `wallet=${payer}&chain=ARBITRUM&token=USDT`,
    ]) {
      const res = await pay(token, query);
      expect(res.statusCode, res.body).toBe(200);
    }
    expect(quotesAsked()).toBe(before + 3);
  });

  it('never serves a quote at its end: a fresh one is asked once too little of it is left', async () => {
    fake.setQuoteLifetime(40);
    const { token } = await baseLink('5');
    const query = `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`;
    const first = (await pay(token, query)).json();
    const fetched = Math.floor(t.clock.now().getTime() / 1000);
    expect(first.metadata.quoteExpiresAt).toBe(fetched + 40);
    expect(first.metadata.executionDeadline).toBe(fetched + 40);
    const before = quotesAsked();
    t.clock.advance(20_000);
    const cached = (await pay(token, query)).json();
    expect(quotesAsked()).toBe(before);
    expect(cached.metadata.quoteExpiresAt).toBe(fetched + 40);
    // 15 s left: too little to sign and send; the route is asked again.
    t.clock.advance(5_000);
    const fresh = (await pay(token, query)).json();
    expect(quotesAsked()).toBe(before + 1);
    expect(fresh.metadata.quoteExpiresAt).toBe(fetched + 25 + 40);
    expect(fresh.metadata.rawStep.id).not.toBe(first.metadata.rawStep.id);
    expect(fresh.transactions[1].data).not.toBe(first.transactions[1].data);
  });

  it('refuses a route that comes back already expired, and serves nothing of it', async () => {
    fake.setQuoteLifetime(0);
    const { token } = await baseLink('5');
    const res = await pay(token, `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      code: 'crosschain_unavailable',
      message: 'The cross-chain route came back already expired; try again shortly',
    });
  });

  it('serves no route whose time runs out while the payer’s balances are read', async () => {
    fake.setQuoteLifetime(20);
    const { token } = await baseLink('5');
    const query = `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`;
    const before = quotesAsked();
    onArbitrumRead = () => t.clock.advance(20_000);
    const res = await pay(token, query);
    expect(onArbitrumRead).toBe(null);
    expect(quotesAsked()).toBe(before + 1);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      code: 'crosschain_unavailable',
      message: 'The cross-chain route expired while its answer was prepared; try again shortly',
    });
    expect(res.body).not.toContain('transactions');
    // Asked again, with time for it: a fresh route.
    const again = await pay(token, query);
    expect(again.statusCode, again.body).toBe(200);
    expect(quotesAsked()).toBe(before + 2);
    expect(again.json().metadata.quoteExpiresAt).toBeGreaterThan(t.clock.now().getTime() / 1000);
  });

  it('refuses a route whose destination call pays someone else, with nothing of it answered', async () => {
    const { token, payee } = await baseLink('25');
    fake.payElsewhere(THIEF);
    const res = await pay(token, `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`);
    expect(res.statusCode).toBe(502);
    const body = res.json();
    expect(body.code).toBe('crosschain_route_refused');
    expect(body.message).toBe(
      `The cross-chain route offered does not make the payment asked for: destination call 1: it pays ${THIEF}`,
    );
    expect(res.body).not.toContain('transactions');
    expect(res.body.toLowerCase()).not.toContain(SPOKE_POOL.toLowerCase());
    expect(payee).not.toBe(THIEF);
  });

  it('does not serve a cached route once the aggregator turns dishonest for a fresh one', async () => {
    const { token } = await baseLink('6');
    const query = `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`;
    expect((await pay(token, query)).statusCode).toBe(200);
    t.clock.advance(120_000);
    fake.payElsewhere(THIEF);
    expect((await pay(token, query)).statusCode).toBe(502);
  });

  it('answers the same-chain calldata when chain and token name the link’s own currency', async () => {
    const { token } = await baseLink('3');
    const before = quotesAsked();
    const res = await pay(token, `wallet=${freshWallet()}&chain=BASE&token=USDC`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata.routeType).toBe('samechain');
    expect(quotesAsked()).toBe(before);
  });

  it('refuses a chain without its token, a source it cannot route, and no wallet', async () => {
    const { token } = await baseLink('3');
    const wallet = freshWallet();
    for (const [query, status, expected] of [
      [
        'chain=ARBITRUM',
        400,
        {
          code: 'validation_failed',
          errors: [{ field: 'token', message: 'chain and token must be sent together' }],
        },
      ],
      [
        'token=USDT',
        400,
        {
          code: 'validation_failed',
          errors: [{ field: 'chain', message: 'chain and token must be sent together' }],
        },
      ],
      [
        `wallet=${wallet}&chain=OPTIMISM&token=USDT`,
        400,
        {
          code: 'crosschain_unavailable',
          message:
            'This link (USDC-base) cannot be paid from OPTIMISM USDT on this server; its paymentOptions list the sources it can',
        },
      ],
      [
        'chain=ARBITRUM&token=USDT',
        400,
        {
          code: 'validation_failed',
          errors: [
            {
              field: 'wallet',
              message:
                'is required with chain and token (the wallet that pays on the source chain)',
            },
          ],
        },
      ],
    ] as const) {
      const res = await pay(token, query);
      expect(res.statusCode, query).toBe(status);
      expect(res.json(), query).toMatchObject(expected);
    }
  });
});

describe('POST /v2/secure-payments/{token}/refresh-step-transaction', () => {
  const refresh = (token: string, step: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/refresh-step-transaction`,
      headers: { 'x-api-key': tenant.apiKey },
      payload: { step },
    });
  const stepsAsked = () =>
    fake.received.filter((request) => request.path === '/v1/advanced/stepTransaction').length;

  it('gives an expired step a fresh transaction, which /pay then serves', async () => {
    fake.setQuoteLifetime(40);
    const { token, payee } = await baseLink('7');
    const query = `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`;
    const first = (await pay(token, query)).json();
    t.clock.advance(60_000);
    const before = stepsAsked();
    const res = await refresh(token, first.metadata.rawStep);
    expect(res.statusCode, res.body).toBe(200);
    expect(stepsAsked()).toBe(before + 1);
    const body = res.json();
    const now = Math.floor(t.clock.now().getTime() / 1000);
    expect(body).toMatchObject({
      quoteFetchedAt: t.clock.now().toISOString(),
      quoteExpiresAt: now + 40,
      executionDeadline: now + 40,
      executionDeadlineBreakdown: { bridge: { deadline: now + 40, source: 'decoded' } },
      transactionRequest: { to: SPOKE_POOL, chainId: 42161 },
    });
    expect(body.rawStep.id).toBe(first.metadata.rawStep.id);
    expect(body.transactionRequest.data).not.toBe(first.transactions[1].data);
    const deposit = decodeDepositV3(body.transactionRequest.data);
    expect(deposit.fillDeadline).toBe(now + 40);
    const [payment] = deposit.message.calls;
    expect(
      payment && decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment.callData }).args[1],
    ).toBe(payee);
    const quotes = quotesAsked();
    const again = (await pay(token, query)).json();
    expect(quotesAsked()).toBe(quotes);
    expect(again.transactions[1].data).toBe(body.transactionRequest.data);
  });

  it('refreshes the step it handed out, not the one sent back altered', async () => {
    const { token, payee } = await baseLink('8');
    const first = (await pay(token, `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`)).json();
    const altered = structuredClone(first.metadata.rawStep);
    for (const inner of altered.includedSteps) {
      if (inner.type === 'custom') inner.action.toContractAddress = THIEF;
    }
    const res = await refresh(token, altered);
    expect(res.statusCode, res.body).toBe(200);
    const [payment] = decodeDepositV3(res.json().transactionRequest.data).message.calls;
    expect(payment?.target).toBe(getAddress(base.chain.addresses.erc20FeeProxy));
    expect(
      payment && decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment.callData }).args[1],
    ).toBe(payee);
  });

  it('answers 400 crosschain_route_gone for a step it never handed out, or handed out for another link', async () => {
    const { token } = await baseLink('9');
    const other = await baseLink('9');
    const first = (await pay(token, `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`)).json();
    const gone = {
      statusCode: 400,
      error: 'Bad Request',
      code: 'crosschain_route_gone',
      message: 'This cross-chain route is gone: ask /pay with chain and token for a new one',
    };
    const unknown = await refresh(token, { ...first.metadata.rawStep, id: 'no-such-step' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual(gone);
    const elsewhere = await refresh(other.token, first.metadata.rawStep);
    expect(elsewhere.json()).toEqual(gone);
    const malformed = await refresh(token, { id: 'x' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('validation_failed');
  });

  it('refuses a refreshed route that pays someone else', async () => {
    const { token } = await baseLink('11');
    const first = (await pay(token, `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`)).json();
    fake.payElsewhere(THIEF);
    const res = await refresh(token, first.metadata.rawStep);
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'crosschain_route_refused',
      message: `The cross-chain route offered does not make the payment asked for: destination call 1: it pays ${THIEF}`,
    });
  });
});

describe('when the aggregator is down', () => {
  it('answers 503 within its time bound, then at once from the open breaker', async () => {
    const { token } = await baseLink('4');
    const query = `wallet=${freshWallet()}&chain=ARBITRUM&token=USDT`;
    fake.fail({ kind: 'hang' });
    let started = Date.now();
    const slow = await pay(token, query);
    expect(slow.statusCode).toBe(503);
    expect(slow.json().code).toBe('crosschain_unavailable');
    expect(Date.now() - started).toBeLessThan(2_000);
    fake.fail({ kind: 'error', status: 502 });
    expect((await pay(token, query)).statusCode).toBe(503);
    const asked = fake.received.length;
    started = Date.now();
    const open = await pay(token, query);
    expect(open.statusCode).toBe(503);
    expect(open.headers['retry-after']).toBe('600');
    expect(Date.now() - started).toBeLessThan(500);
    expect(fake.received.length).toBe(asked);
  });
});
