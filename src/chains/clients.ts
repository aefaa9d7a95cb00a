import {
  type Address,
  BaseError,
  createPublicClient,
  defineChain,
  http,
  type PublicClient,
  type Transport,
  webSocket,
} from 'viem';
import { AppError } from '../base/errors.ts';
import { type NetworkConfigs, networkConfig } from './network-config.ts';
import type { NetworkId } from './networks.ts';
import type { ChainRegistry } from './registry.ts';
import { createRpcFetch } from './rpc-fetch.ts';

/** No RPC configured for the network: an operator fix, not a transient failure. */
export class ChainUnavailableError extends AppError {
  constructor(network: string) {
    super(
      'chain_unavailable',
      `Network ${network} is not available on this server: no RPC is configured for it`,
    );
  }
}

/** The RPC failed or did not answer: transient, the caller may retry. */
class ChainRpcError extends AppError {
  constructor(network: string) {
    super('chain_rpc_failed', `Network ${network} did not answer; try again shortly`);
  }
}

const RPC_TIMEOUT_MS = 10_000;

export interface ChainClients {
  /** The EVM client for a network; throws ChainUnavailableError when none is configured. */
  evm(network: NetworkId): PublicClient;
  /** Whether the network has an RPC (or a stand-in transport) to reach it through. */
  configured(network: NetworkId): boolean;
  /**
   * Runs chain reads, turning RPC failures into ChainRpcError (never a 500 with a stack), and
   * failing with it too once one RPC timeout has passed, retries included.
   */
  read<T>(network: NetworkId, run: (client: PublicClient) => Promise<T>): Promise<T>;
}

/**
 * viem clients built from config: `RPC_URL_<NETWORK>` for real networks, or a transport given
 * by the caller (the in-process sandbox chain, or a test's local chain standing in for one).
 */
export function createChainClients(deps: {
  config: { readonly networks: NetworkConfigs };
  chains: ChainRegistry;
  transports?: Partial<Record<NetworkId, Transport>>;
  /** One call's timeout, and the most a `read` takes in all (tests shorten it). */
  rpcTimeoutMs?: number;
}): ChainClients {
  const clients = new Map<string, PublicClient>();
  const timeoutMs = deps.rpcTimeoutMs ?? RPC_TIMEOUT_MS;

  const transportOf = (network: NetworkId): Transport | null =>
    deps.transports?.[network] ??
    fromUrl(networkConfig(deps.config.networks, network)?.rpcUrl, timeoutMs);

  const evm = (network: NetworkId): PublicClient => {
    const existing = clients.get(network);
    if (existing) return existing;
    const info = deps.chains.network(network);
    if (info?.kind !== 'evm') throw new ChainUnavailableError(network);
    const transport = transportOf(network);
    if (!transport) throw new ChainUnavailableError(network);
    const multicall3 = deps.chains.contracts(network).multicall3;
    const chain = defineChain({
      id: info.chainId,
      name: info.name,
      nativeCurrency: {
        name: info.native.name,
        symbol: info.native.symbol,
        decimals: info.native.decimals,
      },
      rpcUrls: { default: { http: [] } },
      ...(multicall3 && { contracts: { multicall3: { address: multicall3 as Address } } }),
    });
    const client = createPublicClient({
      chain,
      transport,
      batch: { multicall: false },
    }) as PublicClient;
    clients.set(network, client);
    return client;
  };

  return {
    evm,
    configured: (network) => transportOf(network) !== null,
    async read(network, run) {
      const client = evm(network);
      // The transport retries a call once, a timed-out one too: against a node that hangs, a
      // read would take two timeouts, and a route's caller wait that long. The read as a whole
      // gets one; what is still running past it ends unread.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ChainRpcError(network)), timeoutMs);
      });
      try {
        return await Promise.race([run(client), late]);
      } catch (error) {
        if (error instanceof BaseError) throw new ChainRpcError(network);
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** One set of keep-alive connections per process, whatever the networks (chains/rpc-fetch.ts). */
let rpcFetch: typeof fetch | undefined;

function fromUrl(url: string | null | undefined, timeout: number): Transport | null {
  if (!url) return null;
  rpcFetch ??= createRpcFetch();
  return url.startsWith('ws')
    ? webSocket(url, { timeout })
    : http(url, { timeout, retryCount: 1, fetchFn: rpcFetch });
}
