import {
  type Address,
  getAddress,
  type PublicClient,
  parseEventLogs,
  RpcRequestError,
  zeroAddress,
} from 'viem';
import type { ContractSet } from '../chains/contracts.ts';
import { requestCurrencyHash } from '../chains/currencies.ts';
import type { NetworkId } from '../chains/networks.ts';
import {
  chainlinkConversionPathAbi,
  erc20ConversionProxyAbi,
  erc20FeeProxyAbi,
  ethFeeProxyAbi,
} from '../payments/abis.ts';
import type { BlockSource, DetectedPayment } from './types.ts';

/** The RPC refused the block range as too large: scan smaller ranges. */
export class RangeTooLargeError extends Error {}

/** JSON-RPC codes and words providers use to refuse a log range (classified here, once). */
const RANGE_ERROR_CODES = new Set([-32005, -32602, -32614]);
const RANGE_ERROR_WORDS = /range|too many|limit|exceed|too large|10000/i;

const USD_HASH = requestCurrencyHash('ISO4217', 'USD');

const EVENT_ABI = [...erc20FeeProxyAbi, ...ethFeeProxyAbi, ...erc20ConversionProxyAbi].filter(
  (item) => item.type === 'event',
);

/**
 * Payment events of one EVM network: the `TransferWithReferenceAndFee` logs of the
 * ERC20FeeProxy and the EthereumFeeProxy (batch payments pay through them, so their events are
 * here too), and of the conversion proxies, whose `TransferWithConversionAndReference` of the
 * same transaction and reference says what the payment was worth in the request's currency.
 */
export function createEvmSource(deps: {
  network: NetworkId;
  client: PublicClient;
  contracts: Pick<
    ContractSet,
    | 'erc20FeeProxy'
    | 'ethFeeProxy'
    | 'erc20ConversionProxy'
    | 'ethConversionProxy'
    | 'chainlinkConversionPath'
  >;
}): BlockSource {
  const { contracts } = deps;
  const proxies = [
    contracts.erc20FeeProxy,
    contracts.ethFeeProxy,
    contracts.erc20ConversionProxy,
    contracts.ethConversionProxy,
  ]
    .filter((a): a is string => a !== null)
    .map((a) => getAddress(a));
  // The Erc20ConversionProxy delegatecalls the ERC20FeeProxy: its event comes from there.
  const erc20Proxies = new Set(
    [contracts.erc20FeeProxy, contracts.erc20ConversionProxy]
      .filter((a): a is string => a !== null)
      .map((a) => getAddress(a)),
  );

  /** A converted amount (8-decimal fiat) in USD at the payment's block, when a feed says. */
  async function inUsd(currency: Address, amount: bigint, blockNumber: bigint) {
    if (currency.toLowerCase() === USD_HASH) return amount;
    if (!contracts.chainlinkConversionPath) return null;
    try {
      const [usd] = await deps.client.readContract({
        address: getAddress(contracts.chainlinkConversionPath),
        abi: chainlinkConversionPathAbi,
        functionName: 'getConversion',
        args: [amount, [currency, USD_HASH]],
        blockNumber,
      });
      return usd;
    } catch {
      // No feed to USD at that block: the USD value stays unknown rather than guessed.
      return null;
    }
  }

  return {
    head: () => deps.client.getBlockNumber({ cacheTime: 0 }),
    blockHash: async (number) => (await deps.client.getBlock({ blockNumber: number })).hash,
    async events(from, to) {
      let logs: Awaited<ReturnType<PublicClient['getLogs']>>;
      try {
        logs = await deps.client.getLogs({
          address: proxies as Address[],
          fromBlock: from,
          toBlock: to,
        });
      } catch (error) {
        if (isRangeError(error))
          throw new RangeTooLargeError(`${deps.network} refused blocks ${from}-${to}`);
        throw error;
      }
      const all = parseEventLogs({ abi: EVENT_ABI, logs });
      const parsed = all.filter((log) => log.eventName === 'TransferWithReferenceAndFee');
      // Each conversion event, by transaction and reference, for the payment it describes.
      const conversions = new Map<string, NonNullable<DetectedPayment['conversion']>>();
      for (const log of all) {
        if (log.eventName !== 'TransferWithConversionAndReference' || !log.topics[1]) continue;
        const args = log.args as {
          amount: bigint;
          currency: Address;
          feeAmount: bigint;
          maxRateTimespan: bigint;
        };
        conversions.set(`${log.transactionHash}:${log.topics[1].toLowerCase()}`, {
          currency: args.currency.toLowerCase(),
          amount: args.amount,
          feeAmount: args.feeAmount,
          maxRateTimespan: args.maxRateTimespan,
          amountInUsd:
            log.blockNumber === null
              ? null
              : await inUsd(args.currency, args.amount, log.blockNumber),
        });
      }
      const timestamps = new Map<bigint, Date>();
      const events: DetectedPayment[] = [];
      for (const log of parsed) {
        const topic = log.topics[1];
        if (log.blockNumber === null || log.blockHash === null || log.logIndex === null || !topic)
          continue;
        let timestamp = timestamps.get(log.blockNumber);
        if (!timestamp) {
          const block = await deps.client.getBlock({ blockNumber: log.blockNumber });
          timestamp = new Date(Number(block.timestamp) * 1000);
          timestamps.set(log.blockNumber, timestamp);
        }
        const args = log.args as {
          tokenAddress?: Address;
          to: Address;
          amount: bigint;
          feeAmount: bigint;
          feeAddress: Address;
        };
        const isErc20 =
          erc20Proxies.has(getAddress(log.address)) && args.tokenAddress !== undefined;
        const conversion = conversions.get(`${log.transactionHash}:${topic.toLowerCase()}`);
        events.push({
          network: deps.network,
          txHash: log.transactionHash ?? '',
          logIndex: log.logIndex,
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          timestamp,
          referenceTopic: topic.toLowerCase(),
          tokenAddress: isErc20 && args.tokenAddress ? getAddress(args.tokenAddress) : null,
          payee: getAddress(args.to),
          amount: args.amount,
          feeAmount: args.feeAmount,
          // No fee, no fee address: a batch names one for its own sake even when nothing is paid.
          feeAddress:
            args.feeAmount === 0n || args.feeAddress === zeroAddress
              ? null
              : getAddress(args.feeAddress),
          payerAddress: null,
          ...(conversion && { conversion }),
        });
      }
      return events;
    },
    async sender(txHash) {
      const tx = await deps.client.getTransaction({ hash: txHash as `0x${string}` });
      return getAddress(tx.from);
    },
  };
}

function isRangeError(error: unknown): boolean {
  let current: unknown = error;
  while (current instanceof Error) {
    if (
      current instanceof RpcRequestError &&
      RANGE_ERROR_CODES.has(current.code) &&
      RANGE_ERROR_WORDS.test(current.message)
    ) {
      return true;
    }
    if (RANGE_ERROR_WORDS.test(current.message) && /block|range|results/i.test(current.message))
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
