import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller } from '../base/poller.ts';
import type { ChainClients } from './clients.ts';
import { isSandboxNetwork, type Network, networkEnvSuffix } from './networks.ts';
import type { ChainRegistry } from './registry.ts';
import type { TronGridClient } from './tron-grid.ts';

/** How often a network that has not answered yet is asked again, in ms. */
const RETRY_MS = 5_000;

/**
 * One network's start check, as `/readyz` shows it. `checking` until its RPC first answers or
 * fails; `unreachable` when it did not answer; `wrong_chain` when it answered for another chain
 * (an RPC_URL pointing at the wrong network); `ok` once it answered as itself, which it stays:
 * an RPC failing later is a transient error of the calls that meet it, not a reason to take
 * the process out of service.
 */
export interface NetworkReadiness {
  readonly network: string;
  readonly status: 'checking' | 'ok' | 'unreachable' | 'wrong_chain';
  /** Why it is not ok, in words safe to show anyone (never the RPC's URL, which may hold a key). */
  readonly reason: string | null;
  readonly checkedAt: string | null;
}

export interface NetworkProbe {
  /** Checks every network now, then again every few seconds those that have not answered. */
  start(): void;
  stop(): Promise<void>;
  status(): readonly NetworkReadiness[];
}

/**
 * Asks each network this process has an RPC for (`RPC_URL_<NETWORK>`, or the sandbox chain)
 * whether it answers, and as which chain: an EVM network its chain id, Tron its latest block.
 * The service serves meanwhile (a call that needs a network that is down gets its own 502 or
 * 503), and `/readyz` answers 503 naming the networks that have not answered yet. Each failure
 * is logged once, and the recovery once.
 */
export function createNetworkProbe(deps: {
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  /** The Tron full node (`RPC_URL_TRON`), when configured. */
  readonly tron: TronGridClient | null;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly retryMs?: number;
}): NetworkProbe {
  const probed = deps.chains.networks.filter((network) =>
    network.kind === 'tron' ? deps.tron !== null : deps.clients.configured(network.id),
  );
  const states = new Map<string, NetworkReadiness>(
    probed.map((network) => [
      network.id,
      { network: network.id, status: 'checking', reason: 'not checked yet', checkedAt: null },
    ]),
  );

  /** Null when the network answered as itself, else why not. */
  const ask = async (
    network: Network,
  ): Promise<Pick<NetworkReadiness, 'status' | 'reason'> | null> => {
    try {
      if (network.kind === 'tron') {
        await deps.tron?.getNowBlock();
        return null;
      }
      const chainId = await deps.clients.evm(network.id).getChainId();
      if (chainId === network.chainId) return null;
      return {
        status: 'wrong_chain',
        reason: `its RPC serves chain id ${chainId}, not ${network.chainId}`,
      };
    } catch (error) {
      return { status: 'unreachable', reason: `its RPC did not answer (${rpcFailure(error)})` };
    }
  };

  const check = async (network: Network): Promise<void> => {
    const before = states.get(network.id);
    const failed = await ask(network);
    const checkedAt = deps.clock.now().toISOString();
    const where = isSandboxNetwork(network.id)
      ? `the sandbox chain${network.id === 'sandbox' ? '' : ` ${network.id}`}`
      : `RPC_URL_${networkEnvSuffix(network.id)}`;
    if (failed === null) {
      states.set(network.id, { network: network.id, status: 'ok', reason: null, checkedAt });
      if (before?.status === 'unreachable' || before?.status === 'wrong_chain')
        deps.logger.info({ network: network.id }, `network ${network.id} (${where}) answers now`);
      return;
    }
    states.set(network.id, { network: network.id, ...failed, checkedAt });
    if (before?.status === 'checking') {
      deps.logger.warn(
        { network: network.id, reason: failed.reason },
        `network ${network.id} (${where}): ${failed.reason}; serving meanwhile, /readyz answers 503 until it answers`,
      );
    }
  };

  const poller = createPoller({
    logger: deps.logger,
    pollMs: deps.retryMs ?? RETRY_MS,
    round: async () => {
      const waiting = probed.filter((network) => states.get(network.id)?.status !== 'ok');
      await Promise.all(waiting.map(check));
      return false;
    },
    failure: { level: 'warn', message: 'network check failed' },
  });

  return {
    start: () => {
      if (probed.length > 0) poller.start();
    },
    stop: () => poller.stop(),
    status: () => [...states.values()],
  };
}

/** Node's connection errors, by code, as an operator reads them. */
const FAILURE_OF_CODE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
};

/**
 * What went wrong, from the error and its causes: a connection error's code, a timeout, an
 * HTTP status, a JSON-RPC error. Never an error's message, which may quote the URL.
 */
function rpcFailure(error: unknown): string {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 10; depth++) {
    const { code, status } = at as { code?: unknown; status?: unknown };
    if (typeof code === 'string' && FAILURE_OF_CODE[code]) return FAILURE_OF_CODE[code];
    if (at.name === 'TimeoutError' || at.name === 'AbortError') return 'timed out';
    if (typeof status === 'number') return `HTTP ${status}`;
    if (typeof code === 'number') return `JSON-RPC error ${code}`;
    at = at.cause;
  }
  return 'no usable answer';
}
