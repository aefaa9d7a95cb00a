import {
  type Abi,
  type AbiParameter,
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
import {
  decodePayerProbe,
  encodePayerProbe,
  type ProbeCall,
  probeFits,
} from './calldata/payer-probe.ts';
import { encodeCall } from './transactions.ts';

/**
 * Everything calldata needs to know about a payer, read in one `eth_call`: native balance,
 * base fee, and per token the balance and the allowance of one spender, with any extra calls.
 * One round trip whatever the number of tokens, so a batch of ten costs what a single does.
 * The call is the deployless probe (calldata/payer-probe.ts); where the probe cannot carry the
 * calls (an extra call with a dynamic answer, or more calls than a creation may hold) it is
 * Multicall3's `aggregate3`. Either way a failing call fails the whole read.
 */

export interface TokenQuery {
  readonly token: Address;
  readonly spender: Address;
}

interface TokenState {
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
  const tokenCalls = query.tokens.flatMap(({ token, spender }) => [
    { target: token, callData: `${SELECTORS.balanceOf}${word(query.funder)}` as Hex, words: 1 },
    {
      target: token,
      callData: `${SELECTORS.allowance}${word(query.owner)}${word(spender)}` as Hex,
      words: 1,
    },
  ]);
  const extraCalls = extra.map((call) => ({
    target: call.address,
    callData: encodeCall(call.abi as Abi, call.functionName, call.args ?? []),
    words: answerWords(call),
  }));
  const calls = [...tokenCalls, ...extraCalls];
  const sized = calls.every((call) => call.words !== null) ? (calls as ProbeCall[]) : null;
  const read =
    sized && probeFits(sized)
      ? await probe(client, query.funder, sized)
      : await aggregate(client, multicall3, query.funder, calls);
  const tokens = new Map<string, TokenState>();
  query.tokens.forEach(({ token }, index) => {
    tokens.set(token.toLowerCase(), {
      balance: uint256(read.results[index * 2] ?? '0x', erc20Abi, 'balanceOf'),
      allowance: uint256(read.results[index * 2 + 1] ?? '0x', erc20Abi, 'allowance'),
    });
  });
  const first = query.tokens.length * 2;
  return {
    nativeBalance: read.nativeBalance,
    baseFee: read.baseFee,
    tokens,
    extra: extra.map((call, index) =>
      decodeFunctionResult({
        abi: call.abi as Abi,
        functionName: call.functionName,
        data: read.results[first + index] ?? '0x',
      }),
    ),
  };
}

interface Reads {
  readonly nativeBalance: bigint;
  readonly baseFee: bigint;
  /** Each call's answer, in order. */
  readonly results: readonly Hex[];
}

async function probe(
  client: PublicClient,
  funder: Address,
  calls: readonly ProbeCall[],
): Promise<Reads> {
  const answer = await client.request({
    method: 'eth_call',
    params: [{ data: encodePayerProbe(funder, calls) }, 'latest'],
  });
  return decodePayerProbe(answer, calls);
}

async function aggregate(
  client: PublicClient,
  multicall3: Address,
  funder: Address,
  reads: readonly { readonly target: Address; readonly callData: Hex }[],
): Promise<Reads> {
  const calls: Call3[] = [
    {
      target: multicall3,
      allowFailure: false,
      callData: `${SELECTORS.getEthBalance}${word(funder)}`,
    },
    { target: multicall3, allowFailure: false, callData: SELECTORS.getBasefee },
    ...reads.map((read) => ({ target: read.target, allowFailure: false, callData: read.callData })),
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
  return {
    nativeBalance: uint256(data(0), multicall3Abi, 'getEthBalance'),
    baseFee: uint256(data(1), multicall3Abi, 'getBasefee'),
    results: reads.map((_, index) => data(2 + index)),
  };
}

/**
 * How many 32-byte words a call's answer holds when every output is of static size (what the
 * probe copies); null when one is dynamic (bytes, string, a T[]), which only aggregate3 reads.
 */
export function answerWords(call: ExtraCall): number | null {
  const item = getAbiItem({ abi: call.abi as Abi, name: call.functionName }) as
    | { readonly outputs?: readonly AbiParameter[] }
    | undefined;
  return staticWords(item?.outputs ?? []);
}

function staticWords(parameters: readonly AbiParameter[]): number | null {
  let words = 0;
  for (const parameter of parameters) {
    const one = staticWordsOf(parameter.type, parameter);
    if (one === null) return null;
    words += one;
  }
  return words;
}

function staticWordsOf(type: string, parameter: AbiParameter): number | null {
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array) {
    if (array[2] === '') return null;
    const inner = staticWordsOf(array[1] ?? '', parameter);
    return inner === null ? null : inner * Number(array[2]);
  }
  if (type === 'tuple') {
    return staticWords(
      (parameter as { readonly components?: readonly AbiParameter[] }).components ?? [],
    );
  }
  return type === 'bytes' || type === 'string' ? null : 1;
}
