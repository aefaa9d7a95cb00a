import type { LiFiStep } from '@lifi/types';
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  keccak256,
  toHex,
  zeroAddress,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountOf, type StandIn, sendAll, standIn } from '../../test/chain.ts';
import { createLogger } from '../base/logger.ts';
import { type DestinationCall, encodeDepositV3 } from '../crosschain/across.ts';
import { erc20FeeProxyAbi } from '../payments/abis.ts';
import { multicallHandlerArtifact } from './across-artifacts.ts';
import { sandboxBridgeRelayer } from './addresses.ts';
import { type FakeAggregator, startFakeAggregator } from './aggregator/fake-aggregator.ts';
import { spokePoolAbi } from './bridge-deposits.ts';
import { type BridgeRelayer, bridgeChain, createBridgeRelayer } from './bridge-relayer.ts';
import type { LocalChain } from './chain.ts';

/**
 * The local bridge on two local chains (stand-ins for Arbitrum, A, and Base, B): a payer on A
 * deposits USDT into A's SpokePool, the relayer fills the deposit on B with its own USDC, and
 * B's MulticallHandler runs the deposit's message: a fee proxy payment of a payee on B.
 */

const PAYEE = getAddress('0x00000000000000000000000000000000000b0b01');
const FEE_ADDRESS = getAddress('0x00000000000000000000000000000000000fee01');
const REFERENCE: Hex = '0x0123456789abcdef';
const LIFETIME_SECONDS = 300;
const WAIT = { timeout: 15_000, interval: 25 };

let a: LocalChain;
let b: LocalChain;
let relayer: BridgeRelayer | undefined;
const snapshots: Hex[] = [];
const logger = createLogger('silent');
const bridgeAccount = privateKeyToAccount(sandboxBridgeRelayer().privateKey);

beforeAll(async () => {
  const [arbitrum, base]: StandIn[] = await Promise.all([standIn('arbitrum-one'), standIn('base')]);
  if (!arbitrum || !base) throw new Error('no chains');
  a = arbitrum.chain;
  b = base.chain;
}, 180_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});
beforeEach(async () => {
  snapshots.splice(0, 2, await a.snapshot(), await b.snapshot());
});
afterEach(async () => {
  await relayer?.stop();
  relayer = undefined;
  const [sa, sb] = snapshots;
  if (sa) await a.revert(sa);
  if (sb) await b.revert(sb);
});

type Record = Map<string, 'filled' | 'refunded'>;

function startRelayer(
  options: { paused?: boolean; done?: Record; fillDelayMs?: number; now?: () => number } = {},
): BridgeRelayer {
  const { paused, ...rest } = options;
  const started = createBridgeRelayer({
    logger,
    chains: [bridgeChain(a), bridgeChain(b)],
    pollMs: 50,
    ...rest,
  });
  if (paused) started.pause();
  started.start();
  relayer = started;
  return started;
}

function depositOf(from: BridgeRelayer, origin: LocalChain, depositId: number) {
  return from
    .deposits()
    .find(
      (d) =>
        d.relayData.originChainId === BigInt(origin.chainId) && d.relayData.depositId === depositId,
    );
}

async function settle(from: BridgeRelayer, depositId: number, status: string) {
  from.wake();
  await vi.waitFor(() => expect(depositOf(from, a, depositId)?.status).toBe(status), WAIT);
}

/** Waits until the relayer has run a whole round that began after this call. */
async function anotherRound(from: BridgeRelayer) {
  const seen = from.rounds();
  from.wake();
  await vi.waitFor(() => expect(from.rounds()).toBeGreaterThanOrEqual(seen + 2), WAIT);
}

function balance(chain: LocalChain, token: Address, owner: Address): Promise<bigint> {
  return chain.client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

async function chainSeconds(chain: LocalChain): Promise<number> {
  return Number((await chain.client.getBlock()).timestamp);
}

function feeProxyPayment(chain: LocalChain, amount: bigint, fee: bigint): Hex {
  return encodeFunctionData({
    abi: erc20FeeProxyAbi,
    functionName: 'transferFromWithReferenceAndFee',
    args: [chain.addresses.usdc, PAYEE, amount, REFERENCE, fee, FEE_ADDRESS],
  });
}

/** Deposits `inputAmount` USDT from wallet 2 on A for `outputAmount` USDC and `calls` on B. */
async function deposit(
  inputAmount: bigint,
  outputAmount: bigint,
  calls: readonly DestinationCall[],
  destinationChainId = b.chainId,
): Promise<number> {
  const payer = accountOf(a, 2);
  const depositId = await a.client.readContract({
    address: a.addresses.spokePool,
    abi: spokePoolAbi,
    functionName: 'numberOfDeposits',
  });
  const now = await chainSeconds(a);
  await sendAll(a, payer, [
    approval(a, a.addresses.usdt, a.addresses.spokePool, inputAmount),
    {
      to: a.addresses.spokePool,
      data: encodeDepositV3({
        depositor: payer.address,
        recipient: b.addresses.acrossHandler,
        inputToken: a.addresses.usdt,
        outputToken: b.addresses.usdc,
        inputAmount,
        outputAmount,
        destinationChainId: BigInt(destinationChainId),
        exclusiveRelayer: zeroAddress,
        quoteTimestamp: now,
        fillDeadline: now + LIFETIME_SECONDS,
        exclusivityDeadline: 0,
        message: { fallbackRecipient: payer.address, calls },
      }),
      value: '0x0',
      chainId: a.chainId,
    },
  ]);
  return depositId;
}

function approval(chain: LocalChain, token: Address, spender: Address, amount: bigint) {
  return {
    to: token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
    value: '0x0' as const,
    chainId: chain.chainId,
  };
}

describe('the local bridge', () => {
  it('pays a payee on B exactly through the fee proxy from a quote the fake aggregator made on A', async () => {
    const payer = accountOf(a, 2);
    let clockMs = (await chainSeconds(a)) * 1000;
    const fake: FakeAggregator = await startFakeAggregator({
      tokens: [
        { chainId: a.chainId, address: a.addresses.usdt, symbol: 'USDT', decimals: 6 },
        { chainId: b.chainId, address: b.addresses.usdc, symbol: 'USDC', decimals: 6 },
      ],
      spokePools: { [a.chainId]: a.addresses.spokePool },
      recipient: b.addresses.acrossHandler,
      pricing: { feeBps: 10, feeFlat: '0.5', executionDurationSeconds: 30 },
      now: () => clockMs,
    });
    let step: LiFiStep;
    try {
      clockMs = (await chainSeconds(a)) * 1000;
      const response = await fetch(`${fake.url}/v1/quote/contractCalls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          fromChain: a.chainId,
          fromToken: a.addresses.usdt,
          fromAddress: payer.address,
          toChain: b.chainId,
          toToken: b.addresses.usdc,
          toAmount: '25250000',
          toFallbackAddress: payer.address,
          contractCalls: [
            {
              fromAmount: '25250000',
              fromTokenAddress: b.addresses.usdc,
              toContractAddress: b.addresses.erc20FeeProxy,
              toContractCallData: feeProxyPayment(b, 25_000_000n, 250_000n),
              toContractGasLimit: '200000',
            },
          ],
        }),
        signal: AbortSignal.timeout(5_000),
      });
      expect(response.status).toBe(200);
      step = (await response.json()) as LiFiStep;
    } finally {
      await fake.close();
    }
    const request = step.transactionRequest;
    const fromAmount = BigInt(step.estimate.fromAmount);
    const toAmount = BigInt(step.estimate.toAmount);
    if (!request?.to || !request.data) throw new Error('the quote has no transaction');

    const running = startRelayer({ paused: true });
    const before = {
      payerUsdtA: await balance(a, a.addresses.usdt, payer.address),
      payerUsdcB: await balance(b, b.addresses.usdc, payer.address),
      relayerUsdcB: await balance(b, b.addresses.usdc, bridgeAccount.address),
    };
    await sendAll(a, payer, [
      approval(a, a.addresses.usdt, getAddress(step.estimate.approvalAddress), fromAmount),
      { to: getAddress(request.to), data: request.data as Hex, value: '0x0', chainId: a.chainId },
    ]);

    // Paused, the relayer sees the deposit and leaves it pending: nothing reached B yet.
    await settle(running, 0, 'pending');
    await anotherRound(running);
    expect(depositOf(running, a, 0)?.status).toBe('pending');
    expect(await balance(b, b.addresses.usdc, PAYEE)).toBe(0n);
    expect(await balance(a, a.addresses.usdt, a.addresses.spokePool)).toBe(fromAmount);

    running.resume();
    await settle(running, 0, 'filled');
    const events = await b.client.getContractEvents({
      address: b.addresses.erc20FeeProxy,
      abi: erc20FeeProxyAbi,
      eventName: 'TransferWithReferenceAndFee',
      fromBlock: 0n,
    });
    expect(events.map((event) => event.args)).toEqual([
      {
        tokenAddress: b.addresses.usdc,
        to: PAYEE,
        amount: 25_000_000n,
        paymentReference: keccak256(REFERENCE),
        feeAmount: 250_000n,
        feeAddress: FEE_ADDRESS,
      },
    ]);
    expect(await balance(b, b.addresses.usdc, PAYEE)).toBe(25_000_000n);
    expect(await balance(b, b.addresses.usdc, FEE_ADDRESS)).toBe(250_000n);
    // The fallback recipient (the payer, on B) gets what the calls left; the handler keeps none.
    expect(await balance(b, b.addresses.usdc, payer.address)).toBe(
      before.payerUsdcB + toAmount - 25_250_000n,
    );
    expect(await balance(b, b.addresses.usdc, b.addresses.acrossHandler)).toBe(0n);
    expect(await balance(b, b.addresses.usdc, bridgeAccount.address)).toBe(
      before.relayerUsdcB - toAmount,
    );
    expect(await balance(a, a.addresses.usdt, payer.address)).toBe(before.payerUsdtA - fromAmount);
    expect(fromAmount - toAmount).toBe(BigInt(step.estimate.feeCosts?.[0]?.amount ?? 0));
  });

  it('sends everything to the fallback recipient when a destination call reverts, undoing the others', async () => {
    const payer = accountOf(a, 2);
    const before = await balance(b, b.addresses.usdc, payer.address);
    const pays: DestinationCall = {
      target: b.addresses.erc20FeeProxy,
      callData: feeProxyPayment(b, 10_000_000n, 0n),
      approvalAddress: b.addresses.erc20FeeProxy,
      token: b.addresses.usdc,
      amount: 10_000_000n,
    };
    // ERC20FeeProxy has no such function and no fallback: the second call reverts.
    const reverts: DestinationCall = { ...pays, callData: '0xdeadbeef' };
    const depositId = await deposit(20_100_000n, 20_000_000n, [pays, reverts]);

    const running = startRelayer();
    await settle(running, depositId, 'filled');
    expect(await balance(b, b.addresses.usdc, PAYEE)).toBe(0n);
    expect(await balance(b, b.addresses.usdc, payer.address)).toBe(before + 20_000_000n);
    expect(await balance(b, b.addresses.usdc, b.addresses.acrossHandler)).toBe(0n);
    const allowance = await b.client.readContract({
      address: b.addresses.usdc,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [b.addresses.acrossHandler, b.addresses.erc20FeeProxy],
    });
    expect(allowance).toBe(0n);
    // The calls run only as the handler's call to itself, never for an outsider.
    await expect(
      b.client.simulateContract({
        account: payer,
        address: b.addresses.acrossHandler,
        abi: multicallHandlerArtifact.abi,
        functionName: 'attemptCalls',
        args: [[pays]],
      }),
    ).rejects.toThrow(/NotSelf/);
  });

  it('waits its fill delay after first seeing a deposit, and leaves one bound elsewhere alone', async () => {
    let ms = 0;
    const running = startRelayer({ fillDelayMs: 60_000, now: () => ms });
    const elsewhere = await deposit(1_000_000n, 990_000n, [], 1);
    const depositId = await deposit(3_000_000n, 2_990_000n, []);
    await settle(running, depositId, 'pending');
    expect(depositOf(running, a, elsewhere)?.status).toBe('unroutable');
    ms = 59_999;
    await anotherRound(running);
    expect(depositOf(running, a, depositId)?.status).toBe('pending');
    ms = 60_000;
    await settle(running, depositId, 'filled');
    expect(depositOf(running, a, elsewhere)?.status).toBe('unroutable');
  });

  it('refuses a second fill, and a restarted relayer fills nothing again', async () => {
    const call: DestinationCall = {
      target: b.addresses.erc20FeeProxy,
      callData: feeProxyPayment(b, 5_000_000n, 0n),
      approvalAddress: b.addresses.erc20FeeProxy,
      token: b.addresses.usdc,
      amount: 5_000_000n,
    };
    const depositId = await deposit(5_010_000n, 5_000_000n, [call]);
    const done: Record = new Map();
    const first = startRelayer({ done });
    await settle(first, depositId, 'filled');
    const filled = depositOf(first, a, depositId);
    expect(filled?.fillTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    await first.stop();

    // The SpokePool refuses the same relay again, whoever sends it.
    if (!filled) throw new Error('no deposit');
    await expect(
      b.client.simulateContract({
        account: bridgeAccount,
        address: b.addresses.spokePool,
        abi: spokePoolAbi,
        functionName: 'fillV3Relay',
        args: [filled.relayData, BigInt(a.chainId)],
      }),
    ).rejects.toThrow(/RelayFilled/);

    // Started again with its record, or with none (the SpokePool's record then), it sends nothing.
    for (const record of [done, new Map() as Record]) {
      const again = startRelayer({ done: record });
      await settle(again, depositId, 'filled');
      expect(depositOf(again, a, depositId)?.fillTxHash).toBeUndefined();
      await again.stop();
    }
    const fills = await b.client.getContractEvents({
      address: b.addresses.spokePool,
      abi: spokePoolAbi,
      eventName: 'FilledV3Relay',
      fromBlock: 0n,
    });
    expect(fills).toHaveLength(1);
    expect(fills[0]?.args).toMatchObject({
      originChainId: BigInt(a.chainId),
      depositId,
      relayer: bridgeAccount.address,
      recipient: b.addresses.acrossHandler,
      outputAmount: 5_000_000n,
      relayExecutionInfo: { fillType: 0, updatedOutputAmount: 5_000_000n },
    });
    expect(await balance(b, b.addresses.usdc, PAYEE)).toBe(5_000_000n);
  });

  it('refunds a deposit left unfilled past its deadline to its depositor on A', async () => {
    const payer = accountOf(a, 2);
    const before = await balance(a, a.addresses.usdt, payer.address);
    const running = startRelayer({ paused: true });
    const depositId = await deposit(7_000_000n, 6_990_000n, []);
    await settle(running, depositId, 'pending');
    running.hold(a.chainId, depositId);
    running.resume();
    await anotherRound(running);
    expect(depositOf(running, a, depositId)?.status).toBe('held');
    expect(await balance(a, a.addresses.usdt, payer.address)).toBe(before - 7_000_000n);

    // Only the refunder refunds, and only once the deadline has passed.
    const refundBy = (account: typeof bridgeAccount) =>
      a.client.simulateContract({
        account,
        address: a.addresses.spokePool,
        abi: spokePoolAbi,
        functionName: 'refundExpired',
        args: [depositId],
      });
    await expect(refundBy(bridgeAccount)).rejects.toThrow(/DepositNotExpired/);
    await expect(refundBy(payer as typeof bridgeAccount)).rejects.toThrow(/NotRefunder/);

    for (const chain of [a, b]) {
      await chain.provider.request({
        method: 'evm_increaseTime',
        params: [toHex(LIFETIME_SECONDS + 1)],
      });
      await chain.provider.request({ method: 'evm_mine' });
    }
    await settle(running, depositId, 'refunded');
    expect(depositOf(running, a, depositId)?.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(a, a.addresses.usdt, payer.address)).toBe(before);
    expect(await balance(a, a.addresses.usdt, a.addresses.spokePool)).toBe(0n);
    await expect(refundBy(bridgeAccount)).rejects.toThrow(/AlreadyRefunded/);

    // Too late to fill it now: B's SpokePool refuses.
    const relayData = depositOf(running, a, depositId)?.relayData;
    if (!relayData) throw new Error('no deposit');
    await expect(
      b.client.simulateContract({
        account: bridgeAccount,
        address: b.addresses.spokePool,
        abi: spokePoolAbi,
        functionName: 'fillV3Relay',
        args: [relayData, BigInt(a.chainId)],
      }),
    ).rejects.toThrow(/ExpiredFillDeadline/);
  });
});
