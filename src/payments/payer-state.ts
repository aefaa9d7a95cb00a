import type { Address, PublicClient } from 'viem';
import { erc20Abi, multicall3Abi } from './abis.ts';

/**
 * Everything calldata needs to know about a payer, read in one Multicall3 `aggregate3` call:
 * native balance, base fee, and per token the balance and the allowance of one spender.
 * One round trip whatever the number of tokens, so a batch of ten costs what a single does.
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
  const calls = [
    {
      address: multicall3,
      abi: multicall3Abi,
      functionName: 'getEthBalance',
      args: [query.funder],
    },
    { address: multicall3, abi: multicall3Abi, functionName: 'getBasefee', args: [] },
    ...query.tokens.flatMap(({ token, spender }) => [
      { address: token, abi: erc20Abi, functionName: 'balanceOf', args: [query.funder] },
      { address: token, abi: erc20Abi, functionName: 'allowance', args: [query.owner, spender] },
    ]),
    ...(query.extra ?? []),
  ];
  const results = (await client.multicall({
    contracts: calls as never,
    allowFailure: false,
    multicallAddress: multicall3,
  })) as unknown[];
  const tokens = new Map<string, TokenState>();
  query.tokens.forEach(({ token }, index) => {
    tokens.set(token.toLowerCase(), {
      balance: results[2 + index * 2] as bigint,
      allowance: results[3 + index * 2] as bigint,
    });
  });
  return {
    nativeBalance: results[0] as bigint,
    baseFee: results[1] as bigint,
    tokens,
    extra: results.slice(2 + query.tokens.length * 2),
  };
}
