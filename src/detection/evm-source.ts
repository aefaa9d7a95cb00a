import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  isHash,
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
import { createHeadChain, followHeads } from './heads.ts';
import { payersOf } from './payer-accounts.ts';
import type { BlockSource, ContractLog, DetectedPayment } from './types.ts';

/** The RPC refused the block range as too large: scan smaller ranges. */
export class RangeTooLargeError extends Error {}

/** JSON-RPC codes and words providers use to refuse a log range (classified here, once). */
const RANGE_ERROR_CODES = new Set([-32005, -32602, -32614]);
const RANGE_ERROR_WORDS = /range|too many|limit|exceed|too large|10000/i;

/**
 * The hash in the node's answer for block `number`, or a failure when it holds none: viem
 * gives a wrong-shaped answer a null hash, which the indexer would take for a fork (a hash
 * other than the one it remembers) and take back the payments recorded above it.
 */
function hashOf(block: { readonly hash: string | null }, number: bigint): string {
  if (block.hash === null || !isHash(block.hash))
    throw new Error(`the node's answer for block ${number} holds no block hash`);
  return block.hash;
}

/** Receipts kept for payments of the same transaction (a batch's). */
const KEPT_RECEIPTS = 1_024;

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
    | 'batchPayments'
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

  // The batch contract takes a batch's tokens from the payer, then pays through the proxy.
  const intermediaries = new Set(
    [contracts.batchPayments].filter((a): a is string => a !== null).map((a) => a.toLowerCase()),
  );

  // What the followed heads said of recent blocks, asked before the node (heads.ts).
  const heads = createHeadChain();

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
    } catch (error) {
      // No feed to USD at that block: the USD value stays unknown rather than guessed. Any
      // other failure (the node did not answer) fails the scan, which is tried again.
      if (
        error instanceof BaseError &&
        error.walk((e) => e instanceof ContractFunctionRevertedError)
      )
        return null;
      throw error;
    }
  }

  /**
   * Transactions' receipts, kept for the transactions seen last: a batch pays many requests in
   * one, and each payment asks who paid (keyed with the block: a fork re-mines transactions).
   */
  const receipts = new Map<string, ReturnType<PublicClient['getTransactionReceipt']>>();
  const receiptOf = (event: { txHash: string; blockHash: string }) => {
    const key = `${event.txHash}:${event.blockHash}`;
    let receipt = receipts.get(key);
    if (!receipt) {
      receipt = deps.client.getTransactionReceipt({ hash: event.txHash as `0x${string}` });
      receipt.catch(() => receipts.delete(key));
      receipts.set(key, receipt);
      for (const old of receipts.keys()) {
        if (receipts.size <= KEPT_RECEIPTS) break;
        receipts.delete(old);
      }
    }
    return receipt;
  };

  async function scan(from: bigint, to: bigint, watched: readonly string[]) {
    let logs: Awaited<ReturnType<PublicClient['getLogs']>>;
    try {
      logs = await deps.client.getLogs({
        address: [...proxies, ...watched.map((a) => getAddress(a))],
        fromBlock: from,
        toBlock: to,
      });
    } catch (error) {
      if (isRangeError(error))
        throw new RangeTooLargeError(`${deps.network} refused blocks ${from}-${to}`);
      throw error;
    }
    const watching = new Set(watched.map((a) => a.toLowerCase()));
    const all = parseEventLogs({
      abi: EVENT_ABI,
      logs: logs.filter((log) => !watching.has(log.address.toLowerCase())),
    });
    const parsed = all.filter((log) => log.eventName === 'TransferWithReferenceAndFee');
    const conversions = new Map<string, NonNullable<DetectedPayment['conversion']>>();
    for (const [transferKey, log] of pairConversions(all)) {
      const args = log.args as {
        amount: bigint;
        currency: Address;
        feeAmount: bigint;
        maxRateTimespan: bigint;
      };
      conversions.set(transferKey, {
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
    const timestamps = new Map<string, Promise<Date>>();
    /** A block's time: from its followed head, else read once per block. */
    const timeOf = (blockHash: `0x${string}`) => {
      const heard = heads.timeOf(blockHash);
      if (heard) return heard;
      let timestamp = timestamps.get(blockHash);
      if (!timestamp) {
        timestamp = deps.client
          .getBlock({ blockHash })
          .then((block) => new Date(Number(block.timestamp) * 1000));
        timestamps.set(blockHash, timestamp);
      }
      return timestamp;
    };
    const events: DetectedPayment[] = [];
    for (const log of parsed) {
      const topic = log.topics[1];
      if (log.blockNumber === null || log.blockHash === null || log.logIndex === null || !topic)
        continue;
      const timestamp = await timeOf(log.blockHash);
      const args = log.args as {
        tokenAddress?: Address;
        to: Address;
        amount: bigint;
        feeAmount: bigint;
        feeAddress: Address;
      };
      const isErc20 = erc20Proxies.has(getAddress(log.address)) && args.tokenAddress !== undefined;
      const conversion = conversions.get(logKey(log));
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
        payerEoaAddress: null,
        ...(conversion && { conversion }),
      });
    }
    const contractLogs: ContractLog[] = [];
    for (const log of logs) {
      if (!watching.has(log.address.toLowerCase())) continue;
      if (log.blockNumber === null || log.blockHash === null || log.logIndex === null) continue;
      contractLogs.push({
        address: getAddress(log.address),
        topics: log.topics,
        data: log.data,
        txHash: log.transactionHash ?? '',
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
        timestamp: await timeOf(log.blockHash),
      });
    }
    return { payments: events, logs: contractLogs };
  }

  return {
    head: () => deps.client.getBlockNumber({ cacheTime: 0 }),
    blockHash: async (number) =>
      heads.hashAt(number) ?? hashOf(await deps.client.getBlock({ blockNumber: number }), number),
    follow: (listener) =>
      followHeads(deps.client, {
        onHead(head) {
          heads.add(head);
          listener.onHead(head);
        },
        onDropped(error) {
          heads.clear();
          listener.onDropped(error);
        },
      }),
    events: async (from, to) => (await scan(from, to, [])).payments,
    scan,
    async payers(event) {
      return payersOf(await receiptOf(event), event, {
        intermediaries,
        // An EIP-7702 account's code is a delegation (0xef0100 ‖ address): still an EOA.
        isEoa: async (address) => {
          const code = await deps.client.getCode({ address });
          return code === undefined || code === '0x' || code.startsWith('0xef0100');
        },
      });
    },
  };
}

type ParsedLog = ReturnType<typeof parseEventLogs<typeof EVENT_ABI>>[number];

const logKey = (log: ParsedLog) => `${log.transactionHash}:${log.logIndex}`;

/**
 * Which transfer each conversion describes. A conversion proxy emits the fee proxy's
 * `TransferWithReferenceAndFee` (delegatecalled, so from its own address) and then its
 * `TransferWithConversionAndReference`: a conversion belongs to the latest transfer before it
 * in the same transaction, from the same address, with the same reference, not already
 * claimed. Other transfers of that reference in the transaction (a batch may hold plain ones)
 * stay plain, and two conversions of one reference each keep their own amount.
 */
function pairConversions(logs: readonly ParsedLog[]): Map<string, ParsedLog> {
  const sorted = [...logs].sort((a, b) =>
    a.blockNumber === b.blockNumber
      ? (a.logIndex ?? 0) - (b.logIndex ?? 0)
      : a.blockNumber !== null && b.blockNumber !== null && a.blockNumber < b.blockNumber
        ? -1
        : 1,
  );
  const unclaimed = new Map<string, ParsedLog>();
  const paired = new Map<string, ParsedLog>();
  const slot = (log: ParsedLog) =>
    `${log.transactionHash}:${log.address.toLowerCase()}:${log.topics[1]?.toLowerCase()}`;
  for (const log of sorted) {
    if (log.eventName === 'TransferWithReferenceAndFee') {
      unclaimed.set(slot(log), log);
    } else if (log.eventName === 'TransferWithConversionAndReference') {
      const transfer = unclaimed.get(slot(log));
      if (!transfer) continue;
      unclaimed.delete(slot(log));
      paired.set(logKey(transfer), log);
    }
  }
  return paired;
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
