import pino from 'pino';
import { type Address, formatUnits, getAddress, keccak256, parseUnits, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkId } from '../../src/chains/networks.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { FakeAggregator } from '../../src/sandbox/aggregator/fake-aggregator.ts';
import type { BridgeRelayer } from '../../src/sandbox/bridge-relayer.ts';
import { type LocalBridge, startLocalBridge } from '../../src/sandbox/local-bridge.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import { balanceOf, until } from '../bridge-world.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * A multicall payout of children on two destination chains (Base and Optimism) paid from a
 * third (Arbitrum) in one token, end to end on three local chains running the real Request
 * contracts and the local Across bridge: `/pay?chain=&token=` on the parent routes each child
 * through the fake aggregator over real HTTP and checks each destination call, the payer sends
 * the approval and one deposit per child on Arbitrum, the relayer fills each on its chain, where
 * the handler pays the child through the fee proxy under its reference; detection on each chain
 * marks each child paid and the parent completes. And more than 20 children are refused.
 */

let arbitrum: StandIn;
let base: StandIn;
let optimism: StandIn;
let fake: FakeAggregator;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexers: Indexer[] = [];
let dispatcher: Dispatcher;
let relayer: BridgeRelayer;
let bridge: LocalBridge;

beforeAll(async () => {
  [arbitrum, base, optimism] = await Promise.all([
    standIn('arbitrum-one'),
    standIn('base'),
    standIn('optimism'),
  ]);
  // Every local chain deploys the handler at one address: the fake names it for both.
  expect(optimism.chain.addresses.acrossHandler).toBe(base.chain.addresses.acrossHandler);
  const clock = createRealClock();
  // The fake aggregator and the relayer, wired as the sandbox wires them between its chains.
  bridge = await startLocalBridge({
    chains: [arbitrum.chain, base.chain, optimism.chain],
    logger: pino({ level: 'silent' }),
    pricing: { feeBps: 10, feeFlat: '0.5', executionDurationSeconds: 30 },
    quoteLifetimeSeconds: 600,
    now: () => clock.now().getTime(),
  });
  ({ aggregator: fake, relayer } = bridge);
  t = await createTestApp({
    env: {
      ...arbitrum.env,
      ...base.env,
      ...optimism.env,
      LIFI_URL: fake.url,
      ALLOW_LOCAL_WEBHOOKS: 'true',
    },
    transports: { ...arbitrum.transports, ...base.transports, ...optimism.transports },
    clock,
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  const hook = await call('POST', '/v1/webhook', { url: receiver.url });
  expect(hook.statusCode, hook.body).toBe(201);
  indexers = (['base', 'optimism', 'arbitrum-one'] as const).map((network) =>
    testIndexer(t, { network, confirmations: 0 }),
  );
  dispatcher = testDispatcher(t);
  relayer.start(20);
}, 180_000);
afterAll(async () => {
  for (const indexer of indexers) await indexer.stop();
  await receiver?.close();
  await t?.close();
  await bridge?.close();
  for (const chain of [arbitrum, base, optimism]) await chain?.chain.close();
});

function call(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({
    method,
    url,
    headers: { 'x-api-key': tenant.apiKey },
    ...(payload && { payload }),
  });
}

interface Child {
  readonly token: string;
  readonly requestId: string;
  readonly payee: Address;
  readonly chain: StandIn;
  readonly network: NetworkId;
  /** Base units of USDC. */
  readonly units: bigint;
}

/** The token a child is paid in on its chain. */
const tokenOf = (child: Child) =>
  getAddress(
    child.network === 'arbitrum-one'
      ? child.chain.chain.addresses.usdt
      : child.chain.chain.addresses.usdc,
  );

/**
 * A payout link of `amount` on `network` from `creator` to a fresh recipient: USDC, except
 * USDT on Arbitrum (the source token there).
 */
async function payout(
  creator: Address,
  network: 'base' | 'optimism' | 'arbitrum-one',
  amount: string,
) {
  const payee = getAddress(
    keccak256(toHex(`xmulti ${network} ${amount} ${Math.random()}`)).slice(0, 42),
  );
  const res = await call('POST', '/v2/secure-payments/payouts', {
    recipient: payee,
    creatorWalletAddress: creator,
    network,
    currency: network === 'arbitrum-one' ? 'USDT-arbitrum-one' : `USDC-${network}`,
    amount,
  });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json() as { token: string; requestIds: string[] };
  return {
    token: body.token,
    requestId: body.requestIds[0] as string,
    payee,
    chain: { base, optimism, 'arbitrum-one': arbitrum }[network],
    network,
    units: parseUnits(amount, 6),
  } satisfies Child;
}

describe('a multicall payout on Base and Optimism paid with USDT from Arbitrum', () => {
  it('pays each payee exactly on its chain, each child confirmed, the parent completed', async () => {
    const payer = accountOf(arbitrum.chain, 2);
    const children = [
      await payout(payer.address, 'base', '10'),
      await payout(payer.address, 'optimism', '7.25'),
      await payout(payer.address, 'base', '2.5'),
    ];
    const created = await call('POST', '/v2/secure-payments/multicall-payouts', {
      childTokens: children.map((child) => child.token),
      requestedExecutionKind: 'evm_cross_chain',
    });
    expect(created.statusCode, created.body).toBe(201);
    const parent: string = created.json().token;

    // Children on two networks: the payer must say where it pays from.
    const unsaid = await call('GET', `/v2/secure-payments/${parent}/pay?wallet=${payer.address}`);
    expect(unsaid.statusCode, unsaid.body).toBe(400);
    expect(unsaid.json().errors[0]).toMatchObject({
      field: 'chain',
      message: expect.stringContaining('several networks'),
    });

    const pay = await call(
      'GET',
      `/v2/secure-payments/${parent}/pay?wallet=${payer.address}&chain=ARBITRUM&token=USDT`,
    );
    expect(pay.statusCode, pay.body).toBe(200);
    const answer = pay.json();
    const spokePool = getAddress(arbitrum.chain.addresses.spokePool);
    const usdt = getAddress(arbitrum.chain.addresses.usdt);
    expect(answer).toMatchObject({
      paymentType: 'multicall',
      executionKind: 'evm_cross_chain',
      network: 'arbitrum-one',
      chainId: 42161,
      childTokens: children.map((child) => child.token),
      batchPaymentTransaction: null,
      metadata: {
        routeType: 'crosschain',
        approvalTransactionIndices: [0],
        bridgeTxIndices: [1, 2, 3],
        batchPaymentTransactionIndex: null,
        childCount: 3,
        executableLegCount: 3,
        sourceToken: 'USDT',
        sourceTokenAddress: usdt,
        sourceNetwork: 'arbitrum-one',
        sourceSideAmount: '0',
        feePlanCarried: false,
        hasEnoughBalance: true,
      },
    });
    const transactions = answer.transactions as { to: Address; chainId: number }[];
    expect(transactions.map((tx) => [tx.to, tx.chainId])).toEqual([
      [usdt, 42161],
      [spokePool, 42161],
      [spokePool, 42161],
      [spokePool, 42161],
    ]);
    // Each child's destination call: the fee proxy of its own network, proven against its route.
    for (const [index, child] of children.entries()) {
      const proxy = getAddress(child.chain.chain.addresses.erc20FeeProxy);
      expect(answer.children[index]).toMatchObject({
        securePaymentToken: child.token,
        network: child.network,
        sourceTokenAddress: usdt,
        destinationCall: {
          network: child.network,
          chainId: child.chain.chain.chainId,
          chain: String(child.chain.chain.chainId),
          target: proxy,
          contractAddress: proxy,
          calldata: expect.stringMatching(/^0x/),
        },
      });
    }
    expect(answer.destinationCalls).toEqual(
      answer.children.map((child: { destinationCall: unknown }) => child.destinationCall),
    );
    // The one approval covers the three deposits together.
    const bridged = parseUnits(answer.metadata.bridgeSourceAmount, 6);
    expect(bridged).toBeGreaterThan(19_750_000n);

    // Its routes are refreshed together, by asking /pay again, not step by step.
    const refresh = await call('POST', `/v2/secure-payments/${parent}/refresh-step-transaction`, {
      step: answer.metadata.bridge.legs[0].rawStep,
    });
    expect(refresh.statusCode, refresh.body).toBe(400);
    expect(refresh.json().code).toBe('crosschain_route_gone');

    const before = await Promise.all(
      children.map((child) =>
        balanceOf(child.chain, getAddress(child.chain.chain.addresses.usdc), child.payee),
      ),
    );
    const payerBefore = await balanceOf(arbitrum, usdt, payer.address);
    const sent = await sendAll(arbitrum.chain, payer, answer.transactions);
    expect(payerBefore - (await balanceOf(arbitrum, usdt, payer.address))).toBe(bridged);

    // A smart account's receipt of the bundle names the source chain (variant 2).
    const receipt = await call('POST', `/v2/secure-payments/${parent}/multicall-intent`, {
      chain: 'ARBITRUM',
      txHash: sent[1],
      transactionIndices: children.map((_, position) => ({
        childPosition: position,
        transactionIndex: 1 + position,
        routeKind: 'crosschain',
        bridgeTool: 'across',
        sourceToken: 'USDT',
      })),
    });
    expect(receipt.statusCode, receipt.body).toBe(200);

    const filled = await until(
      () => relayer.deposits(),
      (deposits) => deposits.filter((d) => d.status === 'filled').length >= 3,
    );
    expect(filled.filter((d) => d.status === 'filled')).toHaveLength(3);
    for (const [index, child] of children.entries()) {
      const usdc = getAddress(child.chain.chain.addresses.usdc);
      expect((await balanceOf(child.chain, usdc, child.payee)) - (before[index] ?? 0n)).toBe(
        child.units,
      );
    }

    for (const indexer of indexers) await indexer.tick();
    const requestIds = children.map((child) => child.requestId);
    const confirmed = await until(
      async () => {
        await dispatcher.runOnce();
        return receiver.received
          .map((r) => r.body)
          .filter(
            (b) => b.event === 'payment.confirmed' && requestIds.includes(String(b.requestId)),
          );
      },
      (bodies) => bodies.length >= 3,
    );
    expect(confirmed.map((b) => [b.requestId, b.network]).sort()).toEqual(
      children.map((child) => [child.requestId, child.network]).sort(),
    );
    // Each child's payment is cross-chain: from Arbitrum, arrived in one of the relayer's fills
    // on its own network. The bundle's receipt names one transaction, not each leg's deposit.
    const fills = new Set<unknown>(filled.map((d) => d.fillTxHash));
    const arrivals: unknown[] = [];
    for (const child of children) {
      const found = await call('GET', `/v2/payments?requestId=${child.requestId}&type=crosschain`);
      expect(found.json().payments).toEqual([
        expect.objectContaining({
          type: 'crosschain',
          sourceNetwork: 'arbitrum-one',
          destinationNetwork: child.network,
          sourceTxHash: null,
        }),
      ]);
      arrivals.push(found.json().payments[0].destinationTxHash);
      const direct = await call('GET', `/v2/payments?requestId=${child.requestId}&type=direct`);
      expect(direct.json().payments).toEqual([]);
    }
    expect(arrivals.every((hash) => fills.has(hash))).toBe(true);
    expect(new Set(arrivals).size).toBe(3);
    const view = await call('GET', `/v2/secure-payments/multicall-payouts/${parent}`);
    expect(view.json()).toMatchObject({
      status: 'completed',
      executionKind: 'evm_cross_chain',
      children: children.map(() => ({ context: { hasBeenPaid: true } })),
    });
    expect((await call('GET', `/v2/secure-payments/${parent}`)).statusCode).toBe(409);
  });

  it('pays a child already on the source chain in the source token directly, beside the routed ones', async () => {
    const payer = accountOf(arbitrum.chain, 4);
    const children = [
      await payout(payer.address, 'base', '3'),
      await payout(payer.address, 'arbitrum-one', '4.5'),
      await payout(payer.address, 'base', '1.25'),
    ];
    // Its kind left open: the children's networks make it cross-chain.
    const created = await call('POST', '/v2/secure-payments/multicall-payouts', {
      childTokens: children.map((child) => child.token),
    });
    expect(created.statusCode, created.body).toBe(201);
    const parent: string = created.json().token;
    const pay = await call('POST', `/v2/secure-payments/${parent}/calldata`, {
      wallet: payer.address,
      chain: 'ARBITRUM',
      token: 'USDT',
    });
    expect(pay.statusCode, pay.body).toBe(200);
    const answer = pay.json();
    const batch = getAddress(arbitrum.chain.addresses.batchPayments);
    // The bridge's approval and two deposits, then the batch's approval and the batch payment.
    expect(answer.metadata).toMatchObject({
      bridgeTxIndices: [1, 2],
      approvalTransactionIndices: [0, 3],
      batchPaymentTransactionIndex: 4,
      sourceSideAmount: '4.5',
      executableLegCount: 3,
    });
    // The routed children share USDC-base, the direct one is USDT-arbitrum-one: no total adds
    // them up, and none leaves the direct child out while sourceAmount counts it.
    expect(answer.metadata.sourceAmount).toBe(
      formatUnits(parseUnits(answer.metadata.bridgeSourceAmount, 6) + 4_500_000n, 6),
    );
    expect(answer.metadata.costBreakdown).not.toHaveProperty('totals');
    expect(answer.batchPaymentTransaction.to).toBe(batch);
    expect(answer.children[1].destinationCall).toBeUndefined();
    expect(answer.destinationCalls).toHaveLength(2);

    const before = await Promise.all(
      children.map((child) => balanceOf(child.chain, tokenOf(child), child.payee)),
    );
    await sendAll(arbitrum.chain, payer, answer.transactions);
    await until(
      () =>
        Promise.all(children.map((child) => balanceOf(child.chain, tokenOf(child), child.payee))),
      (now) => now.every((value, index) => value > (before[index] ?? 0n)),
    );
    for (const [index, child] of children.entries()) {
      expect(
        (await balanceOf(child.chain, tokenOf(child), child.payee)) - (before[index] ?? 0n),
      ).toBe(child.units);
    }
    for (const indexer of indexers) await indexer.tick();
    const view = await until(
      async () => (await call('GET', `/v2/secure-payments/multicall-payouts/${parent}`)).json(),
      (body) => body.status === 'completed',
    );
    expect(view).toMatchObject({ status: 'completed', executionKind: 'evm_cross_chain' });
  });

  it('totals what every child receives and all the payer spends when the children share a currency', async () => {
    const payer = { address: getAddress(keccak256(toHex('xmulti totals payer')).slice(0, 42)) };
    const children = [
      await payout(payer.address, 'base', '3'),
      await payout(payer.address, 'base', '4.25'),
    ];
    const created = await call('POST', '/v2/secure-payments/multicall-payouts', {
      childTokens: children.map((child) => child.token),
      requestedExecutionKind: 'evm_cross_chain',
    });
    expect(created.statusCode, created.body).toBe(201);
    const pay = await call(
      'GET',
      `/v2/secure-payments/${created.json().token}/pay?wallet=${payer.address}&chain=ARBITRUM&token=USDT`,
    );
    expect(pay.statusCode, pay.body).toBe(200);
    const { metadata } = pay.json();
    expect(metadata.costBreakdown.totals).toEqual({
      paymentAmount: '7.25',
      paymentCurrency: 'USDC-base',
      sourceAmount: metadata.sourceAmount,
    });
    // Both routes' deposits, each more than its child receives (the bridge's fee).
    expect(parseUnits(metadata.sourceAmount, 6)).toBeGreaterThan(7_250_000n);
  });

  it('refuses the whole answer when one child’s route would pay someone else', async () => {
    const payer = accountOf(arbitrum.chain, 1);
    const children = [
      await payout(payer.address, 'base', '2'),
      await payout(payer.address, 'optimism', '3'),
    ];
    const created = await call('POST', '/v2/secure-payments/multicall-payouts', {
      childTokens: children.map((child) => child.token),
      requestedExecutionKind: 'evm_cross_chain',
    });
    expect(created.statusCode, created.body).toBe(201);
    const thief = getAddress(keccak256(toHex('xmulti thief')).slice(0, 42));
    fake.payElsewhere(thief);
    try {
      const pay = await call(
        'GET',
        `/v2/secure-payments/${created.json().token}/pay?wallet=${payer.address}&chain=ARBITRUM&token=USDT`,
      );
      expect(pay.statusCode, pay.body).toBe(502);
      expect(pay.json()).toMatchObject({ code: 'crosschain_route_refused' });
      expect(pay.body).not.toContain(thief.slice(2).toLowerCase());
    } finally {
      fake.payElsewhere(null);
    }
  });

  it('refuses 21 children of a cross-chain multicall, naming the cap of 20', async () => {
    const creator = accountOf(arbitrum.chain, 3).address;
    const children = await Promise.all(
      Array.from({ length: 21 }, (_, i) => payout(creator, i % 2 ? 'base' : 'optimism', '1')),
    );
    for (const requestedExecutionKind of ['evm_cross_chain', undefined]) {
      const refused = await call('POST', '/v2/secure-payments/multicall-payouts', {
        childTokens: children.map((child) => child.token),
        ...(requestedExecutionKind && { requestedExecutionKind }),
      });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'multicall_validation_failed',
        cap: { type: 'child_count', maximum: 20, actual: 21, reduceBy: 1 },
      });
    }
    const twenty = await call('POST', '/v2/secure-payments/multicall-payouts', {
      childTokens: children.slice(0, 20).map((child) => child.token),
      requestedExecutionKind: 'evm_cross_chain',
    });
    expect(twenty.statusCode, twenty.body).toBe(201);
  });
});
