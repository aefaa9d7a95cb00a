import { type Address, getAbiItem, type Hex, hexToBigInt, toFunctionSelector } from 'viem';
import { bounded } from '../base/bounded.ts';
import type { ChainClients } from '../chains/clients.ts';
import { isNative } from '../chains/currencies.ts';
import type { Network, NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { erc20Abi, multicall3Abi } from '../payments/abis.ts';
import { formatAmount } from '../payments/amounts.ts';
import { type Call3, decodeAggregate3, encodeAggregate3 } from '../payments/calldata/aggregate3.ts';
import {
  faceValueEstimate,
  type NeededAmountEstimator,
  type PaymentNeed,
  type PaymentSource,
  paymentSources,
} from './payment-options-sources.ts';

/**
 * `paymentOptions` of `GET /v2/secure-payments/{token}?wallet=`: per chain and token the payer
 * could pay from, its balance, whether it covers the amount needed, and that amount (api-facts
 * §2.6). Each chain is read in one `eth_call` (Multicall3's `aggregate3` of every balance), the
 * chains at once, each within `timeoutMs`: a chain that fails or is late is left out of the
 * answer rather than waited for, so one slow RPC never holds the page.
 */

/** One option, as the reference writes it: decimal strings in the token's units. */
interface PaymentOption {
  readonly balance: string;
  readonly hasEnoughBalance: boolean;
  readonly neededAmount: string;
}

/** Chain key (`BASE`) → token key (`USDC`) → option. */
export type PaymentOptions = Record<string, Record<string, PaymentOption>>;

/** A chain whose balances are not in the answer, and why. */
interface LeftOutChain {
  readonly network: NetworkId;
  readonly reason: 'timeout' | 'failed';
}

export interface PaymentOptionsReader {
  read(
    needs: readonly PaymentNeed[],
    /** Whose balances: the wallet that holds the funds (the EOA behind a smart account). */
    funder: Address,
    /** The amount each option needs; the face value unless told. */
    estimate?: NeededAmountEstimator,
    /** False where `/pay` would refuse a route: the needs' own chain and currencies only. */
    crossChain?: boolean,
  ): Promise<{ readonly options: PaymentOptions; readonly leftOut: readonly LeftOutChain[] }>;
}

const SELECTORS = {
  balanceOf: toFunctionSelector(getAbiItem({ abi: erc20Abi, name: 'balanceOf' })),
  getEthBalance: toFunctionSelector(getAbiItem({ abi: multicall3Abi, name: 'getEthBalance' })),
};
const word = (address: string) => address.slice(2).toLowerCase().padStart(64, '0');

export function createPaymentOptionsReader(deps: {
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  /** How long a chain's balances may take before the answer goes without them. */
  readonly timeoutMs: number;
}): PaymentOptionsReader {
  const reachable = (network: NetworkId) =>
    deps.clients.configured(network) && deps.chains.contracts(network).multicall3 !== null;

  return {
    async read(needs, funder, estimate = faceValueEstimate, crossChain = true) {
      const byNetwork = new Map<NetworkId, PaymentSource[]>();
      for (const source of paymentSources(deps.chains, reachable, needs, crossChain)) {
        const list = byNetwork.get(source.network.id);
        if (list) list.push(source);
        else byNetwork.set(source.network.id, [source]);
      }
      const leftOut: LeftOutChain[] = [];
      const read = await Promise.all(
        [...byNetwork].map(async ([network, sources]) => {
          const outcome = await bounded(readChain(deps, sources, funder, estimate), deps.timeoutMs);
          if (outcome.ok) return outcome.value;
          leftOut.push({ network, reason: outcome.reason });
          return [];
        }),
      );
      const options: PaymentOptions = {};
      for (const [source, option] of read.flat()) {
        options[source.chainKey] ??= {};
        const chain = options[source.chainKey];
        if (chain) chain[source.tokenKey] = option;
      }
      return { options, leftOut };
    },
  };
}

/** A chain's options: its balances in one aggregate3 call, then each source's amount needed. */
async function readChain(
  deps: { readonly chains: ChainRegistry; readonly clients: ChainClients },
  sources: readonly PaymentSource[],
  funder: Address,
  estimate: NeededAmountEstimator,
): Promise<[PaymentSource, PaymentOption][]> {
  const [first] = sources;
  if (!first) return [];
  const balances = await readBalances(deps, first.network, funder, sources);
  const found: [PaymentSource, PaymentOption][] = [];
  for (const [index, source] of sources.entries()) {
    const balance = balances[index];
    // A token with no contract there (a call that fails or answers no word) is no option.
    if (balance === null || balance === undefined) continue;
    const needed = await estimate(source);
    if (needed === null) continue;
    const decimals = source.currency.decimals;
    found.push([
      source,
      {
        balance: formatAmount(balance, decimals),
        hasEnoughBalance: balance >= needed,
        neededAmount: formatAmount(needed, decimals),
      },
    ]);
  }
  return found;
}

/** Each source's balance, in order; null where its call failed. One `eth_call`. */
async function readBalances(
  deps: { readonly chains: ChainRegistry; readonly clients: ChainClients },
  network: Network,
  funder: Address,
  sources: readonly PaymentSource[],
): Promise<(bigint | null)[]> {
  const multicall3 = deps.chains.contracts(network.id).multicall3 as Address;
  const calls: Call3[] = sources.map((source) =>
    isNative(source.currency)
      ? {
          target: multicall3,
          allowFailure: true,
          callData: `${SELECTORS.getEthBalance}${word(funder)}`,
        }
      : {
          target: source.currency.address as Address,
          allowFailure: true,
          callData: `${SELECTORS.balanceOf}${word(funder)}`,
        },
  );
  const answer = await deps.clients.evm(network.id).request({
    method: 'eth_call',
    params: [{ to: multicall3, data: encodeAggregate3(calls) }, 'latest'],
  });
  const results = decodeAggregate3(answer);
  return calls.map((_, index) => {
    const result = results[index];
    return result?.success && result.returnData.length === 66
      ? hexToBigInt(result.returnData as Hex)
      : null;
  });
}
