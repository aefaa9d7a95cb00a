import type { Logger } from 'pino';
import type { Poller } from '../base/poller.ts';
import { SANDBOX_B_NETWORK } from '../chains/networks.ts';
import type { LocalNetwork } from '../chains/registry.ts';
import type { Eip1193Provider, LocalChain } from './chain.ts';
import { createIdleMiner } from './idle-miner.ts';
import { type LocalBridge, startLocalBridge } from './local-bridge.ts';
import { sandboxNetwork } from './network.ts';
import { withSandboxMethods } from './rate-rpc.ts';

/**
 * The sandbox's second chain and what carries money to and from it: `sandbox-b` (chain id
 * 31338, the same contracts, tokens and funded wallets as `sandbox`), the fake routing
 * aggregator on a loopback port (the service's aggregator client is pointed at it) and the
 * local bridge's relayer, which fills each deposit made on one chain on the other
 * (local-bridge.ts). So a newcomer pays a `sandbox` link with `sandbox-b`'s USDT, with nothing
 * else running and no internet.
 */
export interface SandboxBridge {
  readonly network: LocalNetwork;
  /** The second chain's JSON-RPC with the sandbox methods, served at `/sandbox-b/rpc`. */
  readonly provider: Eip1193Provider;
  /** The fake aggregator's base URL: the `LIFI_URL` the service uses. */
  readonly aggregatorUrl: string;
  /** Starts the relayer and the second chain's idle miner. */
  start(): void;
  close(): Promise<void>;
}

/** How often the relayer looks for deposits, in ms: a payer waits about this long for a fill. */
const RELAYER_POLL_MS = 500;

export async function startSandboxBridge(deps: {
  /** The sandbox's first chain, already running. */
  first: LocalChain;
  startLocalChain: (options: { chainId: number }) => Promise<LocalChain>;
  logger: Logger;
  baseUrl: string;
  /** As the first chain's: a block after this long without one (0: never; unset: default). */
  idleBlockMs?: number | undefined;
}): Promise<SandboxBridge> {
  const second = await deps.startLocalChain({ chainId: SANDBOX_B_NETWORK.chainId });
  let bridge: LocalBridge;
  try {
    bridge = await startLocalBridge({ chains: [deps.first, second], logger: deps.logger });
  } catch (error) {
    await second.close();
    throw error;
  }
  const miner: Poller | null =
    deps.idleBlockMs === 0
      ? null
      : createIdleMiner({
          provider: second.provider,
          logger: deps.logger,
          ...(deps.idleBlockMs !== undefined && { idleMs: deps.idleBlockMs }),
        });
  const rpc = `${deps.baseUrl}/${SANDBOX_B_NETWORK.id}/rpc`;
  deps.logger.info(
    {
      network: SANDBOX_B_NETWORK.id,
      chainId: SANDBOX_B_NETWORK.chainId,
      rpc,
      aggregator: bridge.aggregator.url,
    },
    `sandbox chain ${SANDBOX_B_NETWORK.id} ready: JSON-RPC ${rpc}, chain id ${SANDBOX_B_NETWORK.chainId}, the same test wallets; a link is paid from one sandbox chain to the other through the local bridge (routing aggregator ${bridge.aggregator.url}, LIFI_URL unset)`,
  );
  return {
    network: sandboxNetwork(deps.baseUrl, SANDBOX_B_NETWORK),
    provider: withSandboxMethods(second),
    aggregatorUrl: bridge.aggregator.url,
    start() {
      bridge.relayer.start(RELAYER_POLL_MS);
      miner?.start();
    },
    async close() {
      await miner?.stop();
      await bridge.close();
      await second.close();
    },
  };
}
