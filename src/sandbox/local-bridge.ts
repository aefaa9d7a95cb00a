import type { Logger } from 'pino';
import { getAddress } from 'viem';
import { type FakeAggregator, startFakeAggregator } from './aggregator/fake-aggregator.ts';
import type { Pricing } from './aggregator/quote.ts';
import { transferOutcomeOf } from './aggregator/transfer-status.ts';
import { type BridgeRelayer, bridgeChain, createBridgeRelayer } from './bridge-relayer.ts';
import type { LocalChain } from './chain.ts';

/**
 * Cross-chain payments between local chains, wired whole: the fake routing aggregator
 * (aggregator/, real HTTP on loopback) routing every chain's USDC, USDT and DAI through each chain's
 * SpokePool to the destination's MulticallHandler, and the bridge relayer that fills those
 * deposits on the destination chain and tells the aggregator what it did with each (so its
 * status operation answers as LI.FI's would). The sandbox runs it between its two chains
 * (host-bridge.ts); tests run it between stand-ins for real networks.
 */
export interface LocalBridge {
  readonly aggregator: FakeAggregator;
  /** Not started: the caller starts it (`relayer.start(pollMs)`) once the chains are in use. */
  readonly relayer: BridgeRelayer;
  close(): Promise<void>;
}

/**
 * The local chains' test tokens the aggregator routes, all dollars: USDC and USDT in 6 decimals,
 * DAI in 18 (converted one to one in value across decimals). DAI is routed as LI.FI routes it,
 * so that a DAI link is paid from another chain's USDC or USDT as `paymentOptions` offers it;
 * the relayer fills with the DAI every local chain funds it with (chain.ts).
 */
const BRIDGED_TOKENS = [
  { key: 'usdc', decimals: 6 },
  { key: 'usdt', decimals: 6 },
  { key: 'dai', decimals: 18 },
] as const;

export async function startLocalBridge(deps: {
  chains: readonly LocalChain[];
  logger: Logger;
  pricing?: Partial<Pricing>;
  /** How long a quote's deposit may wait to be filled (the aggregator's default unless given). */
  quoteLifetimeSeconds?: number;
  /** The aggregator's clock, in ms (tests move it); `Date.now` otherwise. */
  now?: () => number;
  /** The relayer fills a deposit no sooner than this after it first saw it, in ms. */
  fillDelayMs?: number;
}): Promise<LocalBridge> {
  const [first] = deps.chains;
  if (!first || deps.chains.length < 2) throw new Error('a local bridge needs two chains');
  // Every local chain deploys the same contracts at the same addresses: one handler address.
  const handler = getAddress(first.addresses.acrossHandler);
  const aggregator = await startFakeAggregator({
    tokens: deps.chains.flatMap((chain) =>
      BRIDGED_TOKENS.map(({ key, decimals }) => ({
        chainId: chain.chainId,
        address: chain.addresses[key],
        symbol: key.toUpperCase(),
        decimals,
      })),
    ),
    spokePools: Object.fromEntries(
      deps.chains.map((chain) => [chain.chainId, chain.addresses.spokePool]),
    ),
    recipient: handler,
    ...(deps.pricing && { pricing: deps.pricing }),
    ...(deps.quoteLifetimeSeconds !== undefined && {
      quoteLifetimeSeconds: deps.quoteLifetimeSeconds,
    }),
    ...(deps.now && { now: deps.now }),
  });
  const relayer = createBridgeRelayer({
    logger: deps.logger,
    chains: deps.chains.map((chain) => bridgeChain(chain)),
    ...(deps.fillDelayMs !== undefined && { fillDelayMs: deps.fillDelayMs }),
    // The aggregator's status of a transfer is what the bridge did with its deposit.
    onSettled: (deposit, outcome) =>
      aggregator.setTransfer(deposit.depositTxHash, transferOutcomeOf(outcome)),
  });
  return {
    aggregator,
    relayer,
    async close() {
      await relayer.stop().catch(() => {});
      await aggregator.close();
    },
  };
}
