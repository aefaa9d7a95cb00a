import type { Logger } from 'pino';
import { type Account, createWalletClient, custom, erc20Abi, type Hex, maxUint256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createPoller } from '../base/poller.ts';
import { sandboxBridgeRelayer } from './addresses.ts';
import {
  type BridgeChain,
  type DepositStatus,
  depositKey,
  depositsIn,
  relayHash,
  type SeenDeposit,
  spokePoolAbi,
} from './bridge-deposits.ts';
import type { LocalChain } from './chain.ts';

/**
 * The local bridge's relayer: what Across's relayers and dataworker do, for local chains. It
 * reads `V3FundsDeposited` on every chain it knows and fills each deposit bound for another of
 * them with its own tokens (`fillV3Relay` on the destination SpokePool, repaid on none: the
 * sandbox does not repay relayers). A deposit left unfilled past its deadline on the
 * destination chain, where it can no longer be filled, is refunded to its depositor on the
 * origin chain (`refundExpired`, which only the relayer may call). Tests steer it: a delay
 * before each fill, a pause, deposits held back to expire.
 */

/** Interval between rounds when none is given, in ms. */
const POLL_MS = 1_000;
/** Most blocks of one chain read in one round. */
const MAX_BLOCKS_PER_ROUND = 2_000n;
/** `fillStatuses` says this when a relay has been filled (Across's FillStatus.Filled). */
const FILLED = 2n;

interface TrackedDeposit extends SeenDeposit {
  readonly status: DepositStatus;
  readonly fillTxHash?: Hex;
  readonly refundTxHash?: Hex;
}

/** How a deposit ended for the relayer, and the transaction that ended it. */
export interface SettledDeposit {
  readonly status: 'filled' | 'refunded';
  readonly txHash: Hex;
}

export interface BridgeRelayer {
  start(pollMs?: number): void;
  /** Looks again now (after a deposit, or after moving a chain's clock). */
  wake(): void;
  stop(): Promise<void>;
  /** Fills nothing until `resume`: deposits stay pending. */
  pause(): void;
  resume(): void;
  /** Never fills this deposit: it waits for its deadline, then is refunded. */
  hold(originChainId: number, depositId: number): void;
  /** Every deposit seen, oldest first per chain. */
  deposits(): readonly TrackedDeposit[];
  /** Rounds finished so far: how a caller knows the relayer has looked again since. */
  rounds(): number;
}

export function createBridgeRelayer(deps: {
  logger: Logger;
  chains: readonly BridgeChain[];
  /** A deposit is filled no sooner than this after the relayer first saw it, in ms. */
  fillDelayMs?: number;
  /**
   * Deposits filled or refunded already (by `depositKey`): a relayer started again with the
   * same record does not look at them again. Without it, the destination SpokePool's record of
   * fills still keeps it from filling twice.
   */
  done?: Map<string, 'filled' | 'refunded'>;
  pollMs?: number;
  /** Monotonic ms (tests move it); `performance.now` otherwise. */
  now?: () => number;
  /**
   * Told of each deposit this relayer filled or refunded, with its transaction: how the fake
   * aggregator learns what its status operation answers for the deposit's source transaction.
   */
  onSettled?: (deposit: SeenDeposit, outcome: SettledDeposit) => void;
}): BridgeRelayer {
  const chains = new Map(deps.chains.map((chain) => [chain.chainId, chain]));
  const done = deps.done ?? new Map<string, 'filled' | 'refunded'>();
  const now = deps.now ?? (() => performance.now());
  const fillDelayMs = deps.fillDelayMs ?? 0;
  /** The next block to read, per origin chain. */
  const cursors = new Map<number, bigint>();
  const tracked = new Map<string, TrackedDeposit & { readonly seenAt: number }>();
  const held = new Set<string>();
  let paused = false;
  let rounds = 0;

  const chainOf = (chainId: number | bigint): BridgeChain => {
    const chain = chains.get(Number(chainId));
    if (!chain) throw new Error(`the relayer knows no chain ${chainId}`);
    return chain;
  };

  /** Reads the next blocks of one chain; true when blocks are left for the next round. */
  const scan = async (origin: BridgeChain): Promise<boolean> => {
    const from = cursors.get(origin.chainId) ?? 0n;
    const head = await origin.client.getBlockNumber({ cacheTime: 0 });
    if (head < from) return false;
    const to = head - from >= MAX_BLOCKS_PER_ROUND ? from + MAX_BLOCKS_PER_ROUND - 1n : head;
    for (const deposit of await depositsIn(origin, from, to)) {
      const key = depositKey(origin.chainId, deposit.relayData.depositId);
      if (tracked.has(key)) continue;
      const status: DepositStatus =
        done.get(key) ??
        (!chains.has(deposit.destinationChainId)
          ? 'unroutable'
          : held.has(key)
            ? 'held'
            : 'pending');
      tracked.set(key, { ...deposit, status, seenAt: now() });
    }
    cursors.set(origin.chainId, to + 1n);
    return to < head;
  };

  const update = (key: string, change: Partial<TrackedDeposit>) => {
    const entry = tracked.get(key);
    if (entry) tracked.set(key, { ...entry, ...change });
    if (change.status === 'filled' || change.status === 'refunded') done.set(key, change.status);
  };

  const fill = async (deposit: SeenDeposit, destination: BridgeChain): Promise<Hex> => {
    const { relayData } = deposit;
    const owner = destination.wallet.account.address;
    const allowance = await destination.client.readContract({
      address: relayData.outputToken,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [owner, destination.spokePool],
    });
    if (allowance < relayData.outputAmount) {
      await confirm(
        destination,
        await destination.wallet.writeContract({
          address: relayData.outputToken,
          abi: erc20Abi,
          functionName: 'approve',
          args: [destination.spokePool, maxUint256],
        }),
      );
    }
    const hash = await destination.wallet.writeContract({
      address: destination.spokePool,
      abi: spokePoolAbi,
      functionName: 'fillV3Relay',
      args: [relayData, relayData.originChainId],
    });
    await confirm(destination, hash);
    return hash;
  };

  /** Refunds an expired deposit once its origin chain's clock has passed the deadline too. */
  const refund = async (key: string, deposit: SeenDeposit): Promise<void> => {
    const origin = chainOf(deposit.relayData.originChainId);
    const [, , , , refunded] = await origin.client.readContract({
      address: origin.spokePool,
      abi: spokePoolAbi,
      functionName: 'deposits',
      args: [deposit.relayData.depositId],
    });
    if (refunded) return update(key, { status: 'refunded' });
    if ((await origin.client.getBlock()).timestamp <= BigInt(deposit.relayData.fillDeadline)) {
      return;
    }
    const hash = await origin.wallet.writeContract({
      address: origin.spokePool,
      abi: spokePoolAbi,
      functionName: 'refundExpired',
      args: [deposit.relayData.depositId],
    });
    await confirm(origin, hash);
    update(key, { status: 'refunded', refundTxHash: hash });
    deps.onSettled?.(deposit, { status: 'refunded', txHash: hash });
    deps.logger.info({ deposit: key, hash }, 'refunded an expired bridge deposit');
  };

  const advance = async (key: string, entry: TrackedDeposit & { seenAt: number }) => {
    if (entry.status !== 'pending' && entry.status !== 'held') return;
    const destination = chainOf(entry.destinationChainId);
    const filled = await destination.client.readContract({
      address: destination.spokePool,
      abi: spokePoolAbi,
      functionName: 'fillStatuses',
      args: [relayHash(entry.relayData, entry.destinationChainId)],
    });
    if (filled === FILLED) return update(key, { status: 'filled' });
    const destinationTime = (await destination.client.getBlock()).timestamp;
    // Past its deadline on the destination chain, no one can fill it any more.
    if (destinationTime > BigInt(entry.relayData.fillDeadline)) return refund(key, entry);
    // Read now, not from the round's snapshot: a hold or a pause may have come during the reads.
    if (held.has(key) || paused || now() - entry.seenAt < fillDelayMs) return;
    const hash = await fill(entry, destination);
    update(key, { status: 'filled', fillTxHash: hash });
    deps.onSettled?.(entry, { status: 'filled', txHash: hash });
    deps.logger.info({ deposit: key, hash }, 'filled a bridge deposit');
  };

  const poller = createPoller({
    logger: deps.logger,
    pollMs: deps.pollMs ?? POLL_MS,
    failure: { level: 'warn', message: 'the bridge relayer’s round failed' },
    round: async () => {
      let more = false;
      for (const chain of chains.values()) more = (await scan(chain)) || more;
      for (const [key, entry] of tracked) {
        try {
          await advance(key, entry);
        } catch (error) {
          // One deposit that cannot move does not hold the others back; it is tried next round.
          deps.logger.warn({ err: error, deposit: key }, 'a bridge deposit could not move');
        }
      }
      rounds += 1;
      return more;
    },
  });

  return {
    start: (pollMs) => poller.start(pollMs),
    wake: () => poller.wake(),
    stop: () => poller.stop(),
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      poller.wake();
    },
    hold(originChainId, depositId) {
      const key = depositKey(originChainId, depositId);
      held.add(key);
      const entry = tracked.get(key);
      if (entry?.status === 'pending') update(key, { status: 'held' });
    },
    deposits: () => [...tracked.values()].map(({ seenAt: _, ...deposit }) => deposit),
    rounds: () => rounds,
  };
}

async function confirm(chain: BridgeChain, hash: Hex): Promise<void> {
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`bridge transaction ${hash} reverted`);
}

/** A local chain as the relayer's, sending as `account` (the sandbox's bridge relayer unless told). */
export function bridgeChain(
  local: LocalChain,
  account: Account = privateKeyToAccount(sandboxBridgeRelayer().privateKey),
): BridgeChain {
  return {
    chainId: local.chainId,
    client: local.client,
    wallet: createWalletClient({
      account,
      chain: local.chain,
      transport: custom(local.provider, { retryCount: 0 }),
    }),
    spokePool: local.addresses.spokePool,
  };
}
