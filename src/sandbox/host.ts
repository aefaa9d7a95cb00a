import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { EIP1193RequestFn } from 'viem';
import { createPoller, type Poller } from '../base/poller.ts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import type { LocalNetwork } from '../chains/registry.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { createLeaderLock } from '../db/leader-lock.ts';
import type { Eip1193Provider, LocalChain } from './chain.ts';
import {
  forgetSandboxBlocks,
  forgetSandboxChain,
  recordSandboxChain,
  sandboxChainUrl,
} from './chain-record.ts';
import { type SandboxBridge, startSandboxBridge } from './host-bridge.ts';
import { createIdleMiner } from './idle-miner.ts';
import { chainStartError, loadChainStarter } from './load-chain.ts';
import { sandboxNetwork } from './network.ts';
import { withSandboxMethods } from './rate-rpc.ts';
import { createRemoteProvider } from './remote-provider.ts';

/** How often a process that does not run the chain checks whether it should take it over. */
const TAKEOVER_POLL_MS = 2_000;
const SANDBOX_LOCK = 'payreq:sandbox';

/**
 * The deployment's one sandbox chain, as this process sees it. With the embedded database
 * there is one process, and it runs the chain. With Postgres, the process holding the sandbox
 * lock runs it (Hardhat's EDR, in process) and serves its JSON-RPC where the others can reach
 * it, recorded in `sandbox_chains`; the others run no chain and send every call there. When
 * the owner stops, one of them takes the lock and starts a fresh chain: links stay in the
 * database, the old chain's blocks are forgotten.
 */
export interface SandboxHost {
  /** The sandbox network as the chain registry serves it. */
  readonly network: LocalNetwork;
  /** The chain, wherever it runs: this process's, or the owner's through its JSON-RPC. */
  readonly provider: Eip1193Provider;
  /**
   * The second chain (`sandbox-b`), when the sandbox bridges (host-bridge.ts): with the
   * embedded database only, so this process runs it. Null otherwise.
   */
  readonly second: { readonly network: LocalNetwork; readonly provider: Eip1193Provider } | null;
  /** The sandbox's own routing aggregator's base URL when it runs one (with `second`). */
  readonly aggregatorUrl: string | null;
  /**
   * Starts mining a block whenever this process's chain has had none for a while, and (on
   * Postgres) watching for the owner to go, to take over.
   */
  start(): void;
  close(): Promise<void>;
}

interface OwnedChain {
  readonly chain: LocalChain;
  /** The chain's JSON-RPC with our sandbox methods (`sandbox_setRate`). */
  readonly provider: Eip1193Provider;
  readonly rpc: { readonly url: string; close(): Promise<void> } | null;
  readonly instance: string;
  /** Mines when the chain is idle, while the host is started; null when that is off (0). */
  readonly miner: Poller | null;
}

/**
 * Throws a StartError (one line: the cause and the fix) when the chain cannot run here: its
 * dev dependencies or the native build of its EVM are missing, or it failed to start. A
 * service started with the sandbox on never runs without it.
 */
export async function createSandboxHost(deps: {
  database: DatabaseHandle;
  logger: Logger;
  /** Public base URL: every process answers the chain's JSON-RPC at `/sandbox/rpc`. */
  baseUrl: string;
  /** Serves a chain's JSON-RPC where the other processes reach it (main.ts does the listening). */
  serveRpc(provider: Eip1193Provider): Promise<{ url: string; close(): Promise<void> }>;
  /** A block is mined after this long without one, in ms (IDLE_BLOCK_MS unless given; 0: never). */
  idleBlockMs?: number | undefined;
  /**
   * Also run the second chain, the fake aggregator and the bridge's relayer (network.ts's
   * `sandboxBridged`); honoured with the embedded database only.
   */
  bridged?: boolean;
}): Promise<SandboxHost> {
  const { database, logger } = deps;
  const db = database.db;
  const startLocalChain = await loadChainStarter();

  let owned: OwnedChain | null = null;
  let started = false;

  /** Starts a fresh chain; on Postgres, serves it and records where. */
  const startChain = async (shared: boolean): Promise<OwnedChain> => {
    const chain = await startLocalChain({ chainId: SANDBOX_NETWORK.chainId });
    const instance = randomUUID();
    const provider = withSandboxMethods(chain);
    let rpc: OwnedChain['rpc'] = null;
    try {
      if (shared) {
        // The others pass sandbox_setRate on to this process too: it is the one that can do it.
        rpc = await deps.serveRpc(provider);
        await recordSandboxChain(db, { rpcUrl: rpc.url, chainInstance: instance });
      } else {
        await forgetSandboxBlocks(db);
      }
    } catch (error) {
      await rpc?.close();
      await chain.close();
      throw error;
    }
    logReady(logger, deps.baseUrl, chain, rpc?.url);
    const miner =
      deps.idleBlockMs === 0
        ? null
        : createIdleMiner({
            provider: chain.provider,
            logger,
            ...(deps.idleBlockMs !== undefined && { idleMs: deps.idleBlockMs }),
          });
    if (started) miner?.start();
    return { chain, provider, rpc, instance, miner };
  };

  const stopChain = async () => {
    const stopping = owned;
    owned = null;
    await stopping?.miner?.stop();
    await stopping?.rpc?.close();
    await stopping?.chain.close();
  };

  if (database.engine.kind === 'pglite') {
    let bridge: SandboxBridge | null = null;
    try {
      owned = await startChain(false);
      if (deps.bridged) {
        bridge = await startSandboxBridge({
          first: owned.chain,
          startLocalChain,
          logger,
          baseUrl: deps.baseUrl,
          idleBlockMs: deps.idleBlockMs,
        });
      }
    } catch (error) {
      await stopChain();
      throw chainStartError(error);
    }
    const chain = owned;
    return {
      network: sandboxNetwork(deps.baseUrl),
      provider: chain.provider,
      second: bridge && { network: bridge.network, provider: bridge.provider },
      aggregatorUrl: bridge?.aggregatorUrl ?? null,
      start() {
        started = true;
        chain.miner?.start();
        bridge?.start();
      },
      async close() {
        await bridge?.close().catch(() => {});
        await stopChain();
      },
    };
  }

  const lock = createLeaderLock(database, SANDBOX_LOCK);
  let cachedUrl: string | null = null;
  const remote = createRemoteProvider({
    async locate(fresh) {
      if (fresh || cachedUrl === null) cachedUrl = await sandboxChainUrl(db);
      return cachedUrl;
    },
    onUnreachable(url, error) {
      logger.warn(
        { err: error, rpc: url },
        'the process that runs the sandbox chain did not answer',
      );
    },
  });

  /**
   * Takes the chain over when its lock is free; lets it go if the lock was lost. A chain that
   * fails to start at the service's start ends the start; later, another process may run it.
   */
  const check = async (atStart = false) => {
    const held = await lock.acquire();
    if (held && !owned) {
      try {
        owned = await startChain(true);
      } catch (error) {
        await lock.release();
        if (atStart) throw chainStartError(error);
        logger.warn({ err: error }, 'could not start the sandbox chain; another process may');
      }
    } else if (!held && owned) {
      // Our lock connection broke: another process may run a chain now, and two must not.
      logger.warn('lost the sandbox lock; stopping this process’s sandbox chain');
      await stopChain();
    }
  };

  await check(true);
  if (!owned) {
    const url = await sandboxChainUrl(db);
    logger.info(
      { network: SANDBOX_NETWORK.id, rpc: url },
      `sandbox chain run by another process; this one reaches it through its JSON-RPC (${url ?? 'not recorded yet'}) and passes ${deps.baseUrl}/sandbox/rpc on to it`,
    );
  }

  const takeover = createPoller({
    logger,
    pollMs: TAKEOVER_POLL_MS,
    round: async () => {
      await check();
      return false;
    },
    failure: { level: 'warn', message: 'sandbox takeover check failed' },
  });

  const provider: Eip1193Provider = {
    // Decided per call: the process may take the chain over (or lose it) while it runs.
    request: ((args: { method: string; params?: unknown }) =>
      owned ? owned.provider.request(args) : remote.request(args)) as EIP1193RequestFn,
  };

  return {
    network: sandboxNetwork(deps.baseUrl),
    provider,
    second: null,
    aggregatorUrl: null,
    start() {
      started = true;
      owned?.miner?.start();
      takeover.start();
    },
    async close() {
      started = false;
      await takeover.stop();
      // Each step runs even if one before it failed; the lock goes last, so no process takes
      // over while this one still serves the chain.
      const instance = owned?.instance;
      if (instance !== undefined) await forgetSandboxChain(db, instance).catch(() => {});
      await stopChain().catch(() => {});
      await lock.release();
    },
  };
}

/** The wallets' keys are the well-known development keys, printed for a browser wallet. */
function logReady(logger: Logger, baseUrl: string, chain: LocalChain, sharedAt?: string): void {
  logger.info(
    {
      network: SANDBOX_NETWORK.id,
      chainId: SANDBOX_NETWORK.chainId,
      rpc: `${baseUrl}/sandbox/rpc`,
      ...(sharedAt && { sharedRpc: sharedAt }),
      contracts: chain.addresses,
      wallets: chain.wallets.map((w) => ({
        index: w.index,
        address: w.address,
        privateKey: w.privateKey,
      })),
    },
    `sandbox chain ready: JSON-RPC ${baseUrl}/sandbox/rpc, chain id ${SANDBOX_NETWORK.chainId}${sharedAt ? ` (other processes reach it at ${sharedAt})` : ''}; test wallets (development keys, never use them elsewhere): ${chain.wallets.map((w) => `#${w.index} ${w.address} ${w.privateKey}`).join('; ')}`,
  );
}
