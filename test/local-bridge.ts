import pino from 'pino';
import { createAggregator } from '../src/crosschain/aggregator.ts';
import {
  type FakeAggregator,
  startFakeAggregator,
} from '../src/sandbox/aggregator/fake-aggregator.ts';
import { transferOutcomeOf } from '../src/sandbox/aggregator/transfer-status.ts';
import {
  type BridgeRelayer,
  bridgeChain,
  createBridgeRelayer,
} from '../src/sandbox/bridge-relayer.ts';
import { type BridgeTracker, createBridgeTracker } from '../src/secure-payments/bridge-tracker.ts';
import { createSettlement } from '../src/workers/settlement.ts';
import type { TestApp } from './app.ts';
import { type StandIn, standIn } from './chain.ts';

/**
 * A link's network (a Base stand-in) and a payer's other network (an Arbitrum stand-in), both
 * local chains with the real Request contracts and the local Across bridge, joined as a
 * cross-chain payment needs them: the fake routing aggregator on loopback quoting USDT on
 * Arbitrum into Base (deposits into Arbitrum's SpokePool, delivered to Base's handler), the
 * bridge relayer filling deposits and telling the fake how each ended, and the app's bridge
 * tracker following the transfers it records.
 */

export interface LocalBridge {
  readonly arbitrum: StandIn;
  readonly fake: FakeAggregator;
  /** For createTestApp, beside the Base stand-in's. */
  readonly env: Record<string, string>;
  readonly transports: StandIn['transports'];
  /** Started on `start`. */
  readonly relayer: BridgeRelayer;
  /** Made on `start`, not started: a test runs its rounds, or starts it. */
  readonly tracker: BridgeTracker;
  /** Once the app exists: the relayer fills deposits every `relayEveryMs`; the tracker is made. */
  start(t: TestApp, relayEveryMs: number): void;
  close(): Promise<void>;
}

export async function startLocalBridge(
  base: StandIn,
  options: { readonly now: () => number; readonly walletCount?: number },
): Promise<LocalBridge> {
  const arbitrum = await standIn(
    'arbitrum-one',
    options.walletCount === undefined ? {} : { walletCount: options.walletCount },
  );
  const fake = await startFakeAggregator({
    tokens: [
      { chainId: 42161, address: arbitrum.chain.addresses.usdt, symbol: 'USDT', decimals: 6 },
      { chainId: 8453, address: base.chain.addresses.usdc, symbol: 'USDC', decimals: 6 },
    ],
    spokePools: { 42161: arbitrum.chain.addresses.spokePool },
    // Across hands the bridged tokens and the message to the handler on Base.
    recipient: base.chain.addresses.acrossHandler,
    pricing: { feeBps: 10, feeFlat: '0.5', executionDurationSeconds: 30 },
    quoteLifetimeSeconds: 600,
    now: options.now,
  });
  const logger = pino({ level: 'silent' });
  const relayer = createBridgeRelayer({
    logger,
    chains: [bridgeChain(arbitrum.chain), bridgeChain(base.chain)],
    // The aggregator's status of a transfer is what the bridge did with its deposit.
    onSettled: (deposit, outcome) =>
      fake.setTransfer(deposit.depositTxHash, transferOutcomeOf(outcome)),
  });
  let tracker: BridgeTracker | null = null;
  return {
    arbitrum,
    fake,
    env: { ...arbitrum.env, LIFI_URL: fake.url },
    transports: arbitrum.transports,
    relayer,
    get tracker() {
      if (!tracker) throw new Error('the local bridge is not started');
      return tracker;
    },
    start(t, relayEveryMs) {
      tracker = createBridgeTracker({
        db: t.db,
        clock: t.clock,
        logger,
        aggregator: createAggregator({ config: t.config.crosschain }),
        chains: t.chains,
        sink: createSettlement({ chains: t.chains }),
        settleAfterMs: 600_000,
      });
      relayer.start(relayEveryMs);
    },
    async close() {
      await tracker?.stop();
      await relayer.stop();
      await fake.close();
      await arbitrum.chain.close();
    },
  };
}
