import type { Address } from 'viem';
import {
  type FakeAggregator,
  startFakeAggregator,
} from '../src/sandbox/aggregator/fake-aggregator.ts';
import type { TestClock } from './app.ts';
import { type StandIn, standIn } from './chain.ts';

/**
 * Cross-chain payments of links on a Base stand-in, paid from an Arbitrum stand-in (both local
 * chains with the real contracts) through the fake routing aggregator over real HTTP. The fake
 * reads the app's clock, so both agree on when a quote expires: pass it once the app exists.
 */

/** Where the fake's deposits go on Arbitrum: no contract there (the relayer is not part of it). */
export const SPOKE_POOL: Address = '0x000000000000000000000000000000000000a7c1';

export interface CrossChainWorld {
  readonly arbitrum: StandIn;
  readonly fake: FakeAggregator;
  /** For createTestApp, beside the Base stand-in's. */
  readonly env: Record<string, string>;
  readonly transports: StandIn['transports'];
  /** The app's clock, which the fake reads from then on. */
  useClock(clock: TestClock): void;
  close(): Promise<void>;
}

export async function startCrossChainWorld(base: StandIn): Promise<CrossChainWorld> {
  const arbitrum = await standIn('arbitrum-one');
  let clock: TestClock | null = null;
  const fake = await startFakeAggregator({
    tokens: [
      { chainId: 42161, address: arbitrum.chain.addresses.usdt, symbol: 'USDT', decimals: 6 },
      { chainId: 42161, address: arbitrum.chain.addresses.usdc, symbol: 'USDC', decimals: 6 },
      { chainId: 8453, address: base.chain.addresses.usdc, symbol: 'USDC', decimals: 6 },
    ],
    spokePools: { 42161: SPOKE_POOL },
    pricing: { feeBps: 10, feeFlat: '0.5', executionDurationSeconds: 30 },
    quoteLifetimeSeconds: 300,
    now: () => (clock ? clock.now().getTime() : Date.now()),
  });
  return {
    arbitrum,
    fake,
    env: { ...arbitrum.env, LIFI_URL: fake.url },
    transports: arbitrum.transports,
    useClock: (appClock) => {
      clock = appClock;
    },
    close: async () => {
      await fake.close();
      await arbitrum.chain.close();
    },
  };
}
