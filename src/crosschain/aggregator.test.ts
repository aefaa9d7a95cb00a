import type { Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  API_KEY,
  aggregatorConfig,
  CHAIN_A,
  CHAIN_B,
  clock,
  FEE_PROXY_B,
  PAYEE,
  PAYER,
  quoteRequest,
  SPOKE_POOL_A,
  startFake,
  USDC_B,
  USDT_A,
} from '../../test/aggregator.ts';
import { AlternateStatusError } from '../base/errors.ts';
import type { FakeAggregator } from '../sandbox/aggregator/fake-aggregator.ts';
import { decodeDepositV3 } from './across.ts';
import { createAggregator } from './aggregator.ts';
import { AggregatorRefusal } from './aggregator-http.ts';

const TX = `0x${'ab'.repeat(32)}`;
const FILL = `0x${'cd'.repeat(32)}`;

let fake: FakeAggregator;

beforeAll(async () => {
  fake = await startFake();
});
afterAll(() => fake.close());
afterEach(() => {
  fake.recover();
  fake.payElsewhere(null);
});

async function refusal(promise: Promise<unknown>): Promise<AggregatorRefusal> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AggregatorRefusal)) throw new Error(`expected a refusal, got ${error}`);
  return error;
}

describe('the aggregator adapter against the fake, over HTTP', () => {
  it('quotes a route whose source transaction deposits on Across with the destination call', async () => {
    const aggregator = createAggregator({ config: aggregatorConfig(fake) });
    const before = fake.received.length;
    const step = await aggregator.quoteContractCalls(quoteRequest(25_000_000n));
    expect(step).toMatchObject({
      type: 'lifi',
      tool: 'across',
      action: { fromChainId: CHAIN_A, toChainId: CHAIN_B, fromAddress: PAYER },
      estimate: {
        fromAmount: '25525526',
        toAmount: '25000001',
        approvalAddress: SPOKE_POOL_A,
        executionDuration: 30,
        feeCosts: [{ amount: '525525', included: true, token: { address: USDT_A } }],
      },
      transactionRequest: { to: SPOKE_POOL_A, from: PAYER, chainId: CHAIN_A, value: '0x0' },
    });
    expect(step.includedSteps.map((inner) => [inner.type, inner.tool])).toEqual([
      ['cross', 'across'],
      ['custom', 'custom'],
    ]);
    const deposit = decodeDepositV3(step.transactionRequest?.data as Hex);
    expect(deposit).toMatchObject({
      depositor: PAYER,
      inputToken: USDT_A,
      outputToken: USDC_B,
      inputAmount: 25_525_526n,
      outputAmount: 25_000_001n,
      destinationChainId: BigInt(CHAIN_B),
    });
    expect(deposit.message.calls).toEqual([
      expect.objectContaining({ target: FEE_PROXY_B, token: USDC_B, amount: 25_000_000n }),
    ]);
    const sent = fake.received.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['x-lifi-api-key']).toBe(API_KEY);
    expect(sent[0]?.body).toMatchObject({ allowBridges: ['across'], toAmount: '25000000' });
  });

  it('sends no API key header when none is configured, and the configured bridge as allowBridges', async () => {
    const aggregator = createAggregator({
      config: aggregatorConfig(fake, { apiKey: null, bridge: 'stargateV2' }),
    });
    const before = fake.received.length;
    const refused = await refusal(aggregator.quoteContractCalls(quoteRequest(1_000_000n)));
    expect(refused).toMatchObject({ status: 404, aggregatorCode: 1002 });
    expect(refused.message).toBe('No available quotes for the requested transfer');
    const sent = fake.received[before];
    expect(sent?.headers).not.toHaveProperty('x-lifi-api-key');
    expect(sent?.body).toMatchObject({ allowBridges: ['stargateV2'] });
  });

  it('hands on a refusal without counting it against the aggregator', async () => {
    const aggregator = createAggregator({
      config: aggregatorConfig(fake, { breakerFailures: 1 }),
    });
    const unknownToken = { ...quoteRequest(1_000_000n), fromToken: PAYEE };
    for (let i = 0; i < 3; i += 1) {
      const refused = await refusal(aggregator.quoteContractCalls(unknownToken));
      expect(refused).toMatchObject({ status: 400, aggregatorCode: 1011 });
      expect(refused.message).toBe(`Unknown token ${PAYEE} on chain ${CHAIN_A}`);
    }
    expect(aggregator.breakerState()).toBe('closed');
  });

  it('refreshes a step: the same route with a new deposit deadline', async () => {
    const aggregator = createAggregator({ config: aggregatorConfig(fake) });
    const step = await aggregator.quoteContractCalls(quoteRequest(25_000_000n, 250_000n));
    const first = decodeDepositV3(step.transactionRequest?.data as Hex);
    clock.ms += 600_000;
    const before = fake.received.length;
    const fresh = await aggregator.stepTransaction(step);
    const second = decodeDepositV3(fresh.transactionRequest?.data as Hex);
    expect(fresh.id).toBe(step.id);
    expect(second.quoteTimestamp - first.quoteTimestamp).toBe(600);
    expect(second.fillDeadline - first.fillDeadline).toBe(600);
    expect({ ...second, quoteTimestamp: 0, fillDeadline: 0 }).toEqual({
      ...first,
      quoteTimestamp: 0,
      fillDeadline: 0,
    });
    expect(fake.issued(step.id)?.expiresAt).toBe(second.fillDeadline);
    const sent = fake.received[before];
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/advanced/stepTransaction' });
    expect(sent?.headers['x-lifi-api-key']).toBe(API_KEY);
  });

  it('reads each state of a transfer as LI.FI reports it', async () => {
    const aggregator = createAggregator({ config: aggregatorConfig(fake) });
    const query = { txHash: TX, fromChain: CHAIN_A, toChain: CHAIN_B };
    const before = fake.received.length;
    expect(await aggregator.status(query)).toMatchObject({ status: 'NOT_FOUND' });
    expect(fake.received[before]?.query).toEqual({
      txHash: TX,
      bridge: 'across',
      fromChain: String(CHAIN_A),
      toChain: String(CHAIN_B),
    });
    fake.setTransfer(TX, { status: 'PENDING' });
    expect(await aggregator.status(query)).toMatchObject({
      status: 'PENDING',
      substatus: 'WAIT_DESTINATION_TRANSACTION',
      sending: { txHash: TX, chainId: CHAIN_A },
      receiving: { chainId: CHAIN_B },
    });
    fake.setTransfer(TX, { status: 'DONE', receivingTxHash: FILL, amount: 25_000_000n });
    expect(await aggregator.status(query)).toMatchObject({
      status: 'DONE',
      substatus: 'COMPLETED',
      receiving: { txHash: FILL, chainId: CHAIN_B, amount: '25000000' },
    });
    fake.setTransfer(TX, { status: 'FAILED', substatus: 'EXPIRED' });
    expect(await aggregator.status(query)).toMatchObject({
      status: 'FAILED',
      substatus: 'EXPIRED',
    });
    fake.setTransfer(TX, { status: 'REFUNDED', refundTxHash: FILL });
    expect(await aggregator.status(query)).toMatchObject({
      status: 'DONE',
      substatus: 'REFUNDED',
      receiving: { txHash: FILL, chainId: CHAIN_A },
    });
  });

  it('treats an answer that is not a route through the allowed bridge as a failure, 503', async () => {
    // Fault injection: the aggregator answers a step that bridges through someone else.
    const otherBridge: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      const step = (await answer.json()) as { includedSteps: { tool: string }[] };
      for (const inner of step.includedSteps) inner.tool = inner.tool.replace('across', 'hop');
      return Response.json(step);
    };
    const aggregator = createAggregator({ config: aggregatorConfig(fake), fetch: otherBridge });
    const error = await aggregator.quoteContractCalls(quoteRequest(1_000_000n)).catch((e) => e);
    expect(error).toBeInstanceOf(AlternateStatusError);
    expect(error).toMatchObject({
      code: 'crosschain_unavailable',
      statusCode: 503,
      message: 'The cross-chain routing service gave an answer that is not one; try again shortly',
    });
    expect(String((error as Error).cause)).toContain('bridges through hop, not across');
  });

  it.each([
    [
      'a gas cost in decimals',
      (c: Costs) => ({ ...c, gasCosts: [{ ...c.gasCosts[0], amount: '1.5' }] }),
    ],
    [
      'a fee cost with no amount',
      (c: Costs) => ({ ...c, feeCosts: [{ ...c.feeCosts[0], amount: '' }] }),
    ],
    [
      'a fee priced in words',
      (c: Costs) => ({ ...c, feeCosts: [{ ...c.feeCosts[0], amountUSD: 'n/a' }] }),
    ],
    ['costs that are no list', (c: Costs) => ({ ...c, feeCosts: {} })],
  ])('treats a step with %s as a failure, 503, not a 500 later', async (_what, garble) => {
    // Fault injection: the aggregator's estimate carries costs that are no amounts.
    const garbled: typeof fetch = async (input, init) => {
      const step = (await (await fetch(input, init)).json()) as { estimate: Costs };
      expect(step.estimate.gasCosts.length * step.estimate.feeCosts.length).toBeGreaterThan(0);
      return Response.json({ ...step, estimate: garble(step.estimate) });
    };
    const aggregator = createAggregator({ config: aggregatorConfig(fake), fetch: garbled });
    const error = await aggregator.quoteContractCalls(quoteRequest(1_000_000n)).catch((e) => e);
    expect(error).toMatchObject({ code: 'crosschain_unavailable', statusCode: 503 });
    expect(String((error as Error).cause)).toContain('costs that are no amounts');
  });
});

/** The part of a step's estimate the cost checks read. */
type Costs = { gasCosts: Record<string, unknown>[]; feeCosts: Record<string, unknown>[] };
