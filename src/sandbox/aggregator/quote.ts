import type { Action, CustomStep, Estimate, LiFiStep, Token } from '@lifi/types';
import { type Address, getAddress, parseUnits, toHex, zeroAddress } from 'viem';
import { type DestinationCall, encodeDepositV3 } from '../../crosschain/across.ts';
import { redirected } from './pay-elsewhere.ts';
import type { RouteRequest } from './route-request.ts';

/**
 * The fake aggregator's one route: an Across deposit on the source chain carrying the
 * destination calls in its message, priced with a fixed bridge fee (basis points of the source
 * amount plus a flat amount of the source token), tokens converted one to one in value.
 */

/** Gas the source transaction is given, and what the estimate says it costs. */
const DEPOSIT_GAS_LIMIT = 150_000n;
const GAS_PRICE_WEI = 1_000_000_000n;
const BPS = 10_000n;

export interface FakeToken {
  readonly chainId: number;
  readonly address: Address;
  readonly symbol: string;
  readonly decimals: number;
  /** Default 1: the sandbox's tokens are dollars. */
  readonly priceUSD?: string;
}

export interface Pricing {
  readonly feeBps: number;
  /** In whole source tokens (`0.25`), turned into base units with the token's decimals. */
  readonly feeFlat: string;
  readonly executionDurationSeconds: number;
}

export interface RouteContext {
  readonly tokens: ReadonlyMap<string, Token>;
  readonly spokePool: Address;
  readonly recipient: Address;
  readonly pricing: Pricing;
  /** Unix seconds. */
  readonly quoteTimestamp: number;
  readonly fillDeadline: number;
  /** Set while the fake pays someone else: every destination call is redirected to them. */
  readonly payElsewhere: Address | null;
}

export function tokenKey(chainId: number, address: string): string {
  return `${chainId}:${address.toLowerCase()}`;
}

export function lifiToken(token: FakeToken): Token {
  return {
    chainId: token.chainId,
    address: getAddress(token.address),
    symbol: token.symbol,
    decimals: token.decimals,
    name: token.symbol,
    priceUSD: token.priceUSD ?? '1',
  };
}

function nativeToken(chainId: number): Token {
  return {
    chainId,
    address: zeroAddress,
    symbol: 'ETH',
    decimals: 18,
    name: 'Ether',
    priceUSD: '0',
  };
}

/** `amount` of a token with `from` decimals, in base units of one with `to`, rounded as asked. */
function rescale(amount: bigint, from: number, to: number, round: 'up' | 'down'): bigint {
  if (to >= from) return amount * 10n ** BigInt(to - from);
  const unit = 10n ** BigInt(from - to);
  return round === 'up' ? (amount + unit - 1n) / unit : amount / unit;
}

function usd(amount: bigint, token: Token): string {
  const whole = Number(amount) / 10 ** token.decimals;
  return (whole * Number(token.priceUSD)).toFixed(2);
}

export type RouteOutcome =
  | { readonly ok: true; readonly step: LiFiStep }
  | {
      readonly ok: false;
      readonly status: number;
      readonly code: number;
      readonly message: string;
    };

const NO_QUOTE = 1002;
const INVALID = 1011;

export function buildRoute(
  request: RouteRequest,
  context: RouteContext,
  stepId: string,
): RouteOutcome {
  const fromToken = context.tokens.get(tokenKey(request.fromChain, request.fromToken));
  const toToken = context.tokens.get(tokenKey(request.toChain, request.toToken));
  if (!fromToken || !toToken) {
    const [chain, address] = fromToken
      ? [request.toChain, request.toToken]
      : [request.fromChain, request.fromToken];
    return {
      ok: false,
      status: 400,
      code: INVALID,
      message: `Unknown token ${address} on chain ${chain}`,
    };
  }
  if (request.fromChain === request.toChain) {
    return {
      ok: false,
      status: 404,
      code: NO_QUOTE,
      message: 'No available quotes for the requested transfer',
    };
  }
  const calls = request.calls.map((call) => redirected(call, context.payElsewhere));
  const { feeBps, feeFlat } = context.pricing;
  const flat = parseUnits(feeFlat, fromToken.decimals);
  const bps = BigInt(feeBps);
  const need = request.toAmount ?? calls.reduce((sum, call) => sum + call.fromAmount, 0n);
  // The least source amount whose remainder after the fee still delivers `need`.
  const needFrom = rescale(need, toToken.decimals, fromToken.decimals, 'up');
  const fromAmount =
    request.fromAmount ?? ((needFrom + flat) * BPS + (BPS - bps - 1n)) / (BPS - bps);
  const fee = (fromAmount * bps) / BPS + flat;
  if (fee >= fromAmount) {
    return {
      ok: false,
      status: 404,
      code: NO_QUOTE,
      message: 'The amount does not cover the bridge fee',
    };
  }
  const toAmount = rescale(fromAmount - fee, fromToken.decimals, toToken.decimals, 'down');
  const destinationCalls: DestinationCall[] = calls.map((call) => ({
    target: call.toContractAddress,
    callData: call.toContractCallData,
    approvalAddress: call.toApprovalAddress ?? call.toContractAddress,
    token: call.fromTokenAddress,
    amount: call.fromAmount,
  }));
  const data = encodeDepositV3({
    depositor: request.fromAddress,
    recipient: context.recipient,
    inputToken: getAddress(fromToken.address),
    outputToken: getAddress(toToken.address),
    inputAmount: fromAmount,
    outputAmount: toAmount,
    destinationChainId: BigInt(request.toChain),
    exclusiveRelayer: zeroAddress,
    quoteTimestamp: context.quoteTimestamp,
    fillDeadline: context.fillDeadline,
    exclusivityDeadline: 0,
    message: { fallbackRecipient: request.fallbackAddress, calls: destinationCalls },
  });
  const gasToken = nativeToken(request.fromChain);
  const estimate: Estimate = {
    tool: 'across',
    fromAmount: String(fromAmount),
    fromAmountUSD: usd(fromAmount, fromToken),
    toAmount: String(toAmount),
    toAmountMin: String(toAmount),
    toAmountUSD: usd(toAmount, toToken),
    approvalAddress: context.spokePool,
    feeCosts: [
      {
        name: 'Bridge fee',
        description: `Across relayer fee: ${feeBps} bps plus ${feeFlat} ${fromToken.symbol}`,
        percentage: (Number(fee) / Number(fromAmount)).toFixed(6),
        token: fromToken,
        amount: String(fee),
        amountUSD: usd(fee, fromToken),
        included: true,
      },
    ],
    gasCosts: [
      {
        type: 'SEND',
        price: String(GAS_PRICE_WEI),
        estimate: String(DEPOSIT_GAS_LIMIT),
        limit: String(DEPOSIT_GAS_LIMIT),
        amount: String(GAS_PRICE_WEI * DEPOSIT_GAS_LIMIT),
        amountUSD: '0.00',
        token: gasToken,
      },
    ],
    executionDuration: context.pricing.executionDurationSeconds,
  };
  const action: Action = {
    fromChainId: request.fromChain,
    fromAmount: String(fromAmount),
    fromToken,
    fromAddress: request.fromAddress,
    toChainId: request.toChain,
    toToken,
    toAddress: context.recipient,
    slippage: 0,
  };
  const toolDetails = { key: 'across', name: 'Across', logoURI: '' };
  const customSteps: CustomStep[] = calls.map((call, index) => ({
    id: `${stepId}:call:${index}`,
    type: 'custom',
    tool: 'custom',
    toolDetails: { key: 'custom', name: 'Contract call', logoURI: '' },
    action: {
      fromChainId: request.toChain,
      fromAmount: String(call.fromAmount),
      fromToken: toToken,
      toChainId: request.toChain,
      toToken,
      toContractAddress: call.toContractAddress,
      toContractCallData: call.toContractCallData,
      toFallbackAddress: request.fallbackAddress,
      callDataGasLimit: call.toContractGasLimit,
    },
    estimate: {
      tool: 'custom',
      fromAmount: String(call.fromAmount),
      toAmount: String(call.fromAmount),
      toAmountMin: String(call.fromAmount),
      approvalAddress: call.toApprovalAddress ?? call.toContractAddress,
      executionDuration: 0,
    },
  }));
  return {
    ok: true,
    step: {
      id: stepId,
      type: 'lifi',
      tool: 'across',
      toolDetails,
      action: { ...action, toAddress: request.fallbackAddress },
      estimate,
      includedSteps: [
        { id: `${stepId}:bridge`, type: 'cross', tool: 'across', toolDetails, action, estimate },
        ...customSteps,
      ],
      transactionRequest: {
        to: context.spokePool,
        from: request.fromAddress,
        data,
        value: '0x0',
        chainId: request.fromChain,
        gasLimit: toHex(DEPOSIT_GAS_LIMIT),
        gasPrice: toHex(GAS_PRICE_WEI),
      },
    },
  };
}
