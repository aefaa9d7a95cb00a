import { type Address, encodeFunctionData, type Hex } from 'viem';
import { type CrosschainConfig, SecretText } from '../src/config/crosschain.ts';
import { erc20FeeProxyAbi } from '../src/payments/abis.ts';
import {
  type FakeAggregator,
  type FakeAggregatorOptions,
  startFakeAggregator,
} from '../src/sandbox/aggregator/fake-aggregator.ts';

/**
 * A world for the routing aggregator's tests: two chains (A pays, B is paid), their tokens, a
 * fake aggregator on loopback and the adapter's settings pointing at it, with short bounds.
 */

export const CHAIN_A = 31_337;
export const CHAIN_B = 31_338;
export const USDT_A: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const USDC_B: Address = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
export const DAI_B: Address = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
export const SPOKE_POOL_A: Address = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';
export const FEE_PROXY_B: Address = '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9';
export const PAYER: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const PAYEE: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
export const THIEF: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
export const FEE_ADDRESS: Address = '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65';
export const REFERENCE: Hex = '0x0123456789abcdef';
export const API_KEY = 'test-lifi-key-7c1d';

/** A fake clock the fake aggregator reads, moved by tests. */
export const clock = { ms: Date.UTC(2026, 10, 29, 12, 0, 0) };

export function startFake(options: Partial<FakeAggregatorOptions> = {}): Promise<FakeAggregator> {
  return startFakeAggregator({
    tokens: [
      { chainId: CHAIN_A, address: USDT_A, symbol: 'USDT', decimals: 6 },
      { chainId: CHAIN_B, address: USDC_B, symbol: 'USDC', decimals: 6 },
      { chainId: CHAIN_B, address: DAI_B, symbol: 'DAI', decimals: 18 },
    ],
    spokePools: { [CHAIN_A]: SPOKE_POOL_A },
    pricing: { feeBps: 10, feeFlat: '0.5', executionDurationSeconds: 30 },
    now: () => clock.ms,
    ...options,
  });
}

export function aggregatorConfig(
  fake: FakeAggregator,
  overrides: Partial<CrosschainConfig> = {},
): CrosschainConfig {
  return {
    url: fake.url,
    apiKey: new SecretText(API_KEY),
    bridge: 'across',
    timeoutMs: 1_000,
    breakerFailures: 3,
    breakerHalfOpenMs: 60_000,
    ...overrides,
  };
}

/** The fee proxy payment the link wants made on chain B. */
function feeProxyPayment(amount: bigint, fee: bigint, to: Address = PAYEE): Hex {
  return encodeFunctionData({
    abi: erc20FeeProxyAbi,
    functionName: 'transferFromWithReferenceAndFee',
    args: [USDC_B, to, amount, REFERENCE, fee, FEE_ADDRESS],
  });
}

/** A quote request paying `amount` + `fee` USDC on B from USDT on A through the fee proxy. */
export function quoteRequest(amount: bigint, fee = 0n) {
  return {
    fromChain: CHAIN_A,
    fromToken: USDT_A,
    fromAddress: PAYER,
    toChain: CHAIN_B,
    toToken: USDC_B,
    toAmount: String(amount + fee),
    toFallbackAddress: PAYER,
    contractCalls: [
      {
        fromAmount: String(amount + fee),
        fromTokenAddress: USDC_B,
        toContractAddress: FEE_PROXY_B,
        toContractCallData: feeProxyPayment(amount, fee),
        toContractGasLimit: '200000',
      },
    ],
  };
}
