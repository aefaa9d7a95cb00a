import {
  type Abi,
  type Address,
  decodeFunctionResult,
  getAbiItem,
  type Hex,
  hexToBigInt,
  type PublicClient,
  toFunctionSelector,
} from 'viem';
import { erc20Abi, multicall3Abi } from './abis.ts';
import {
  Aggregate3DecodingError,
  type Call3,
  decodeAggregate3,
  encodeAggregate3,
} from './calldata/aggregate3.ts';
import { encodeCall } from './transactions.ts';

/**
 * Everything calldata needs to know about a payer, read in one Multicall3 `aggregate3` call:
 * native balance, base fee, and per token the balance and the allowance of one spender.
 * One round trip whatever the number of tokens, so a batch of ten costs what a single does.
 * A failing call fails the whole read (`allowFailure: false`), as a revert of `eth_call`.
 */

export interface TokenQuery {
  readonly token: Address;
  readonly spender: Address;
}

export interface TokenState {
  readonly balance: bigint;
  readonly allowance: bigint;
}

export interface PayerState {
  readonly nativeBalance: bigint;
  readonly baseFee: bigint;
  /** Keyed by lower-cased token address. */
  readonly tokens: ReadonlyMap<string, TokenState>;
  /** Results of the extra calls, in order. */
  readonly extra: readonly unknown[];
}

export interface ExtraCall {
  readonly address: Address;
  readonly abi: readonly unknown[];
  readonly functionName: string;
  readonly args?: readonly unknown[];
}

// The four reads every payer costs have one fixed layout (a selector, then 32-byte words), so
// their calldata is written directly rather than through the ABI encoder, once per request each.
const SELECTORS = {
  getEthBalance: toFunctionSelector(getAbiItem({ abi: multicall3Abi, name: 'getEthBalance' })),
  getBasefee: toFunctionSelector(getAbiItem({ abi: multicall3Abi, name: 'getBasefee' })),
  balanceOf: toFunctionSelector(getAbiItem({ abi: erc20Abi, name: 'balanceOf' })),
  allowance: toFunctionSelector(getAbiItem({ abi: erc20Abi, name: 'allowance' })),
};
const word = (address: Address) => address.slice(2).toLowerCase().padStart(64, '0');

/** A uint256 answer: 32 bytes, else the ABI decoder says what is wrong with it. */
function uint256(data: Hex, abi: Abi, functionName: string): bigint {
  if (data.length === 66) return hexToBigInt(data);
  return decodeFunctionResult({ abi, functionName, data }) as bigint;
}

export async function readPayerState(
  client: PublicClient,
  multicall3: Address,
  query: {
    /** Holds the funds (an EOA behind a smart account, or the payer itself). */
    readonly funder: Address;
    /** Grants allowances (the account that will send the transactions). */
    readonly owner: Address;
    readonly tokens: readonly TokenQuery[];
    readonly extra?: readonly ExtraCall[];
  },
): Promise<PayerState> {
  const extra = query.extra ?? [];
  const calls: Call3[] = [
    {
      target: multicall3,
      allowFailure: false,
      callData: `${SELECTORS.getEthBalance}${word(query.funder)}`,
    },
    { target: multicall3, allowFailure: false, callData: SELECTORS.getBasefee },
    ...query.tokens.flatMap(({ token, spender }) => [
      {
        target: token,
        allowFailure: false as const,
        callData: `${SELECTORS.balanceOf}${word(query.funder)}` as Hex,
      },
      {
        target: token,
        allowFailure: false as const,
        callData: `${SELECTORS.allowance}${word(query.owner)}${word(spender)}` as Hex,
      },
    ]),
    ...extra.map((call) => ({
      target: call.address,
      allowFailure: false as const,
      callData: encodeCall(call.abi as Abi, call.functionName, call.args ?? []),
    })),
  ];
  const answer = await client.request({
    method: 'eth_call',
    params: [
      {
        to: multicall3,
        data: encodeAggregate3(calls),
      },
      'latest',
    ],
  });
  const results = decodeAggregate3(answer);
  if (results.length !== calls.length || results.some((result) => !result.success)) {
    // Multicall3 reverts rather than answer a failed call it may not skip: an RPC that says
    // otherwise is not believed (a failed call's bytes are no balance).
    throw new Aggregate3DecodingError(
      `${calls.length} calls that may not fail, answered by ${results.length} results of which ${results.filter((r) => !r.success).length} failed`,
    );
  }
  const data = (index: number): Hex => results[index]?.returnData ?? '0x';
  const tokens = new Map<string, TokenState>();
  query.tokens.forEach(({ token }, index) => {
    tokens.set(token.toLowerCase(), {
      balance: uint256(data(2 + index * 2), erc20Abi, 'balanceOf'),
      allowance: uint256(data(3 + index * 2), erc20Abi, 'allowance'),
    });
  });
  const first = 2 + query.tokens.length * 2;
  return {
    nativeBalance: uint256(data(0), multicall3Abi, 'getEthBalance'),
    baseFee: uint256(data(1), multicall3Abi, 'getBasefee'),
    tokens,
    extra: extra.map((call, index) =>
      decodeFunctionResult({
        abi: call.abi as Abi,
        functionName: call.functionName,
        data: data(first + index),
      }),
    ),
  };
}
