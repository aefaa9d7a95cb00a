import { zeroAddress } from 'viem';
import { evmToTron } from '../chains/tron-address.ts';
import type { TronBlock, TronGridClient } from '../chains/tron-grid.ts';
import type { BlockSource, DetectedPayment } from './types.ts';

/**
 * Tron as a block source: TronGrid indexes events by block timestamp, not height, so a range
 * of heights becomes the time window between its first and last block, and the events are then
 * kept by height exactly.
 */

/** Blocks fetched at once when stamping events with their block hash. */
const BLOCK_FETCH_CONCURRENCY = 4;
/**
 * TronGrid does not document whether its timestamp bounds are inclusive. Widening the window
 * by this much (ms) on both sides costs nothing, since events are then kept by block number.
 */
const WINDOW_SLACK_MS = 1;

const EVENT_NAME = 'TransferWithReferenceAndFee';
/** The proxy emits the zero address when the payer set no fee address. */
const ZERO_ADDRESS = evmToTron(zeroAddress);

export interface TronBlockSourceDeps {
  readonly client: TronGridClient;
  /** The ERC20FeeProxy, base58. */
  readonly proxyAddress: string;
  readonly network: 'tron';
}

export function createTronBlockSource(deps: TronBlockSourceDeps): BlockSource {
  const { client, proxyAddress, network } = deps;

  async function blocksByNumber(numbers: Iterable<bigint>, known: readonly TronBlock[]) {
    const blocks = new Map(known.map((b) => [b.number, b]));
    const missing = [...new Set(numbers)].filter((n) => !blocks.has(n));
    // A few at a time: TronGrid rate-limits per key, and a busy range spans many blocks.
    for (let i = 0; i < missing.length; i += BLOCK_FETCH_CONCURRENCY) {
      const batch = missing.slice(i, i + BLOCK_FETCH_CONCURRENCY);
      for (const block of await Promise.all(batch.map((n) => client.getBlockByNumber(n))))
        blocks.set(block.number, block);
    }
    return blocks;
  }

  return {
    head: async () => (await client.getNowBlock()).number,

    blockHash: async (number) => (await client.getBlockByNumber(number)).hash,

    async events(from, to) {
      if (to < from) return [];
      const first = await client.getBlockByNumber(from);
      const last = to === from ? first : await client.getBlockByNumber(to);
      const found = await client.contractEvents(proxyAddress, {
        eventName: EVENT_NAME,
        minBlockTimestamp: new Date(first.timestamp.getTime() - WINDOW_SLACK_MS),
        maxBlockTimestamp: new Date(last.timestamp.getTime() + WINDOW_SLACK_MS),
        // The scanner waits for its own confirmations and checks block hashes for forks;
        // TronGrid's "confirmed" flag would instead hide events the scanner then steps past.
        onlyConfirmed: false,
      });
      const inRange = found.filter(
        (e) =>
          e.blockNumber >= from &&
          e.blockNumber <= to &&
          e.eventName === EVENT_NAME &&
          e.contractAddress === proxyAddress,
      );
      const blocks = await blocksByNumber(
        inRange.map((e) => e.blockNumber),
        [first, last],
      );
      return inRange.map((e): DetectedPayment => {
        const block = blocks.get(e.blockNumber);
        if (!block) throw new Error(`block ${e.blockNumber} was not fetched`);
        return {
          network,
          txHash: e.transactionId,
          logIndex: e.eventIndex,
          blockNumber: e.blockNumber,
          blockHash: block.hash,
          timestamp: block.timestamp,
          referenceTopic: e.referenceTopic,
          tokenAddress: e.tokenAddress,
          payee: e.to,
          amount: e.amount,
          feeAmount: e.feeAmount,
          feeAddress: e.feeAddress === ZERO_ADDRESS ? null : e.feeAddress,
          payerAddress: null,
          payerEoaAddress: null,
        };
      });
    },

    // Tron has no contract wallets paying here: the sender paid, and signed.
    payers: async (event) => {
      const sender = await client.transactionSender(event.txHash);
      return { payerAddress: sender, payerEoaAddress: sender };
    },
  };
}
