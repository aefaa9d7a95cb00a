import type { CustomStep, LiFiStep } from '@lifi/types';
import { decodeFunctionData, getAddress, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CHAIN_A,
  CHAIN_B,
  clock,
  DAI_B,
  FEE_ADDRESS,
  FEE_PROXY_B,
  PAYEE,
  PAYER,
  quoteRequest,
  REFERENCE,
  SPOKE_POOL_A,
  startFake,
  THIEF,
  USDC_B,
  USDT_A,
} from '../../../test/aggregator.ts';
import { decodeDepositV3 } from '../../crosschain/across.ts';
import { erc20FeeProxyAbi } from '../../payments/abis.ts';
import type { FakeAggregator } from './fake-aggregator.ts';

const HANDLER = getAddress('0x0000000000000000000000000000000000000bb1');

let fake: FakeAggregator;

beforeAll(async () => {
  fake = await startFake({ recipient: HANDLER });
});
afterAll(() => fake.close());
afterEach(() => {
  fake.recover();
  fake.payElsewhere(null);
  fake.setQuoteLifetime(300);
});

async function post(path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, json: await response.json() };
}

async function quote(body: unknown): Promise<LiFiStep> {
  const answer = await post('/v1/quote/contractCalls', body);
  expect(answer.status).toBe(200);
  return answer.json as LiFiStep;
}

function customSteps(step: LiFiStep): CustomStep[] {
  return step.includedSteps.filter((inner): inner is CustomStep => inner.type === 'custom');
}

describe('the fake aggregator', () => {
  it('prices a route with its fee in bps and flat, token decimals converted', async () => {
    const request = { ...quoteRequest(25n * 10n ** 18n), toToken: DAI_B };
    request.contractCalls[0] = { ...request.contractCalls[0], fromTokenAddress: DAI_B } as never;
    const step = await quote(request);
    // 25 DAI need 25 USDT; (25 + 0.5) / (1 - 0.001) rounded up; the fee: 0.1 % floored + 0.5.
    expect(step.estimate).toMatchObject({
      fromAmount: '25525526',
      toAmount: '25000001000000000000',
      toAmountMin: '25000001000000000000',
      feeCosts: [{ amount: '525525', token: { symbol: 'USDT', decimals: 6 } }],
      gasCosts: [{ type: 'SEND', limit: '150000' }],
    });
    expect(step.action).toMatchObject({
      fromToken: { address: USDT_A, decimals: 6 },
      toToken: { address: DAI_B, decimals: 18 },
    });
  });

  it('sends the destination calls in the message of an Across depositV3 on the source chain', async () => {
    clock.ms = Date.UTC(2026, 10, 29, 13, 0, 0);
    const request = quoteRequest(25_000_000n, 250_000n);
    const step = await quote(request);
    expect(step.transactionRequest).toMatchObject({
      to: SPOKE_POOL_A,
      from: PAYER,
      chainId: CHAIN_A,
      value: '0x0',
      gasLimit: '0x249f0',
    });
    const deposit = decodeDepositV3(step.transactionRequest?.data as Hex);
    const quoteTimestamp = clock.ms / 1000;
    expect(deposit).toEqual({
      depositor: PAYER,
      recipient: HANDLER,
      inputToken: USDT_A,
      outputToken: USDC_B,
      inputAmount: BigInt(step.estimate?.fromAmount ?? 0),
      outputAmount: BigInt(step.estimate?.toAmount ?? 0),
      destinationChainId: BigInt(CHAIN_B),
      exclusiveRelayer: '0x0000000000000000000000000000000000000000',
      quoteTimestamp,
      fillDeadline: quoteTimestamp + 300,
      exclusivityDeadline: 0,
      message: {
        fallbackRecipient: PAYER,
        calls: [
          {
            target: FEE_PROXY_B,
            callData: request.contractCalls[0]?.toContractCallData,
            approvalAddress: FEE_PROXY_B,
            token: USDC_B,
            amount: 25_250_000n,
          },
        ],
      },
    });
    expect(customSteps(step)[0]?.action).toMatchObject({
      fromChainId: CHAIN_B,
      toContractAddress: FEE_PROXY_B,
      toContractCallData: request.contractCalls[0]?.toContractCallData,
      toFallbackAddress: PAYER,
      callDataGasLimit: '200000',
    });
  });

  it('pays someone else when told: the fee proxy call keeps all but its payee', async () => {
    fake.payElsewhere(THIEF);
    const step = await quote(quoteRequest(25_000_000n, 250_000n));
    const deposit = decodeDepositV3(step.transactionRequest?.data as Hex);
    for (const data of [
      customSteps(step)[0]?.action.toContractCallData,
      deposit.message.calls[0]?.callData,
    ]) {
      const { args } = decodeFunctionData({ abi: erc20FeeProxyAbi, data: data as Hex });
      expect(args).toEqual([USDC_B, THIEF, 25_000_000n, REFERENCE, 250_000n, FEE_ADDRESS]);
    }
    const other = quoteRequest(1_000_000n);
    other.contractCalls[0] = { ...other.contractCalls[0], toContractCallData: '0x1234' } as never;
    const redirected = await quote(other);
    expect(customSteps(redirected)[0]?.action.toContractAddress).toBe(THIEF);
    fake.payElsewhere(null);
    const honest = await quote(quoteRequest(25_000_000n));
    const { args } = decodeFunctionData({
      abi: erc20FeeProxyAbi,
      data: customSteps(honest)[0]?.action.toContractCallData as Hex,
    });
    expect(args[1]).toBe(PAYEE);
  });

  it('issues quotes that expire after the lifetime it is given, and refreshes them', async () => {
    fake.setQuoteLifetime(0);
    const step = await quote(quoteRequest(1_000_000n));
    const issued = fake.issued(step.id);
    const stale = decodeDepositV3(step.transactionRequest?.data as Hex);
    expect(issued?.expiresAt).toBe(stale.quoteTimestamp);
    expect(stale.fillDeadline).toBe(stale.quoteTimestamp);
    fake.setQuoteLifetime(120);
    clock.ms += 5_000;
    const refreshed = await post('/v1/advanced/stepTransaction', step);
    expect(refreshed.status).toBe(200);
    const fresh = decodeDepositV3((refreshed.json as LiFiStep).transactionRequest?.data as Hex);
    expect(fresh.fillDeadline).toBe(stale.quoteTimestamp + 5 + 120);
    expect(fake.issued(step.id)?.expiresAt).toBe(fresh.fillDeadline);
  });

  it.each([
    ['a bridge list without across', { ...quoteRequest(1n), allowBridges: ['hop'] }, 404, 1002],
    ['no contract calls', { ...quoteRequest(1n), contractCalls: [] }, 400, 1011],
    ['a chain with no bridge', { ...quoteRequest(1n), fromChain: 1 }, 404, 1002],
    ['the same chain', { ...quoteRequest(1n), toChain: CHAIN_A, toToken: USDT_A }, 404, 1002],
    ['an unknown token', { ...quoteRequest(1n), toToken: PAYEE }, 400, 1011],
    ['a body that is not JSON', '{', 400, 1011],
  ])('refuses a quote with %s as LI.FI does', async (_case, body, status, code) => {
    const answer = await post('/v1/quote/contractCalls', body);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ code, message: expect.any(String) });
  });

  it('answers a transfer it does not know NOT_FOUND and refuses a malformed hash', async () => {
    const txHash = `0x${'12'.repeat(32)}`;
    const known = await fetch(
      `${fake.url}/v1/status?txHash=${txHash}&fromChain=${CHAIN_A}&toChain=${CHAIN_B}`,
    );
    expect(await known.json()).toMatchObject({
      status: 'NOT_FOUND',
      sending: { txHash, chainId: CHAIN_A },
    });
    const malformed = await fetch(`${fake.url}/v1/status?txHash=0x12`);
    expect(malformed.status).toBe(400);
    const elsewhere = await fetch(`${fake.url}/v1/routes`);
    expect(elsewhere.status).toBe(404);
  });

  it('fails as told: an HTTP error, a slow answer, no answer until it closes', async () => {
    fake.fail({ kind: 'error', status: 500 });
    const failed = await post('/v1/quote/contractCalls', quoteRequest(1n));
    expect(failed).toEqual({ status: 500, json: { code: 1006, message: 'Service unavailable' } });
    fake.fail({ kind: 'slow', delayMs: 80 });
    const started = performance.now();
    expect((await post('/v1/quote/contractCalls', quoteRequest(1_000_000n))).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    const hanging = await startFake();
    hanging.fail({ kind: 'hang' });
    const pending = fetch(`${hanging.url}/v1/status?txHash=0x12`).then(
      () => 'answered',
      () => 'cut off',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hanging.received).toHaveLength(1);
    await hanging.close();
    expect(await pending).toBe('cut off');
  });
});
